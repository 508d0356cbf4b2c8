//! A request's words as the known-request table weighs them (`terms`), and a request's
//! pieces as typed (`pieces`, `page_words`), which the rules read too.

/// The sigils of GitLab's references that a request's terms read (`#34` is `#ref`).
const SIGILS: &str = "!#@%&$";

/// Words that say nothing about which action is meant.
const FILLER: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "my", "me", "i", "is", "are", "be", "it",
    "this", "that", "with", "from", "by", "and", "or", "at", "as", "please", "you", "can",
];

/// The request's pieces as typed (lower case), split on white space, a GitLab page's web
/// address read as what it names (`page_words`), a reference written after its project
/// apart from it (`acme/web#88` is `acme/web #88`), "take a look" as "look"
/// (`a_look_taken`), and the ways of asking to be shown a thing as "show" ("pull up job
/// 442", "any news on !12", "how is !12 doing", "is #34 done?": `shown_asked`,
/// `asked_how_it_is`, `asked_whether_done`).
pub fn pieces(text: &str) -> Vec<String> {
    let mut pieces: Vec<String> = text
        .to_lowercase()
        .split_whitespace()
        .flat_map(|piece| {
            page_words(piece)
                .or_else(|| project_reference(piece))
                .unwrap_or_else(|| vec![piece.to_owned()])
        })
        .collect();
    asked_how_it_is(&mut pieces);
    asked_whether_done(&mut pieces);
    let mut at = 0;
    while at < pieces.len() {
        if let Some(said) = a_look_taken(&pieces[at..]) {
            pieces.splice(at..at + said, ["look".to_owned()]);
        } else if let Some(said) = shown_asked(&pieces[at..]) {
            pieces.splice(at..at + said, ["show".to_owned()]);
        }
        at += 1;
    }
    pieces
}

/// Ways to ask to be shown a thing, word by word; a slash separates the words one place
/// may hold. Said so, their words ask for nothing of their own: "give" is no award ("give
/// me !12"), "pull" no mirror ("pull up job 442"), "update" no change ("any update on
/// #34?"), "let" no permission ("let me see #34").
const SHOWN: &[&[&str]] = &[
    &["let/lemme", "me", "see/check/view"],
    &["let/lemme", "me", "look", "at"],
    &["let's/lets", "see"],
    &["give", "me"],
    &["tell", "me", "about"],
    &["pull/bring", "up"],
    &["catch", "me", "up", "on/with"],
    &["fill", "me", "in", "on/about"],
    &["any", "news/update/updates/progress", "on/about/with"],
    &["what's/whats", "new/up", "with"],
];

/// How many pieces at the start of `pieces` ask to be shown something (`SHOWN`). "bring
/// up to date" is no such ask.
fn shown_asked(pieces: &[String]) -> Option<usize> {
    SHOWN.iter().find_map(|words| {
        let said = words.iter().enumerate().all(|(at, one_of)| {
            pieces
                .get(at)
                .is_some_and(|piece| one_of.split('/').any(|word| word == piece))
        });
        let to_date = pieces.get(words.len()).is_some_and(|p| p == "to")
            && pieces
                .get(words.len() + 1)
                .is_some_and(|p| p.starts_with("date"));
        (said && !to_date).then_some(words.len())
    })
}

/// "how is !12 doing?", "how's the import going", "where is !12 at": a whole request that
/// asks how a thing stands asks to be shown it, as "show !12" does. Its first words become
/// "show", and its last word goes.
fn asked_how_it_is(pieces: &mut Vec<String>) {
    let word = |at: usize| pieces.get(at).map(String::as_str);
    let opening = match (word(0), word(1)) {
        (Some("how" | "where"), Some("is" | "are")) => 2,
        (Some("how's" | "hows" | "where's" | "wheres"), _) => 1,
        _ => return,
    };
    let asks_where = pieces[0].starts_with("where");
    let closing = pieces.last().map(|p| p.trim_end_matches(['?', '.', '!']));
    let closes = match closing {
        Some("doing" | "going") => !asks_where,
        Some("at") => asks_where,
        _ => false,
    };
    // Something must be left between the two ("how's it going" still asks of "it").
    if closes && pieces.len() > opening + 1 {
        pieces.pop();
        pieces.splice(..opening, ["show".to_owned()]);
    }
}

/// What a thing has come to, in questions such as "is #34 done?", "did job 442 pass" or
/// "has !12 been merged yet" (`asked_whether_done`). "green", "blocked" and the like are
/// not here: they ask about something else than the thing's own state ("is main green" is
/// a pipeline's, "is #34 blocked" its links'); of a person, `PERSON_STATES` are.
const STATES: &str = "done closed open merged resolved fixed finished complete completed over \
    running passed failed succeeded pass fail succeed finish merge close";

/// What a person's account has come to: "is @bob blocked?".
const PERSON_STATES: &str = "blocked banned active deactivated locked";

/// "is #34 done?", "did pipeline 99 pass", "has !12 in acme/web been merged yet?", "is @bob
/// blocked": a whole request that asks whether a thing it names by number (or a person it
/// names) has come to a state (`STATES`, `PERSON_STATES`) asks to be shown it, as "show
/// #34" does. Its first word becomes "show", and the state goes with the words around it
/// ("still", "been", "yet", "already", "or not").
fn asked_whether_done(pieces: &mut Vec<String>) {
    if !pieces.first().is_some_and(|p| {
        ["is", "are", "was", "were", "has", "have", "had", "did"].contains(&p.as_str())
    }) {
        return;
    }
    let bare = |at: usize| pieces[at].trim_end_matches(['?', '.', '!']);
    let mut end = pieces.len();
    if end > 2 && bare(end - 1) == "not" && pieces[end - 2] == "or" {
        end -= 2;
    }
    if end > 1 && ["yet", "already", "now"].contains(&bare(end - 1)) {
        end -= 1;
    }
    if end < 3 {
        return;
    }
    let state = bare(end - 1);
    let is_one_of = |words: &str| words.split_whitespace().any(|word| word == state);
    let person_state = is_one_of(PERSON_STATES);
    if !person_state && !is_one_of(STATES) {
        return;
    }
    end -= 1;
    while end > 1 && ["still", "been", "all", "fully"].contains(&pieces[end - 1].as_str()) {
        end -= 1;
    }
    // The thing asked about: a few words, one clause, with a number or reference in them.
    // "has the deploy finished" names no thing of its own, "are there issues still open"
    // asks whether some exist, "did any of the jobs of pipeline 9 fail" asks of several.
    let thing = &pieces[1..end];
    let named = if person_state {
        thing.iter().any(|p| p.len() > 1 && p.starts_with('@'))
    } else {
        thing.iter().any(|p| {
            p.trim_start_matches(['#', '!', '&', '$', '%'])
                .starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let one_clause = thing.iter().all(|p| !p.ends_with([',', '?', ';']));
    let asks_of_others = thing.first().is_some_and(|p| {
        [
            "there", "anyone", "anybody", "someone", "somebody", "everyone", "any", "all", "every",
            "we", "i", "you",
        ]
        .contains(&p.as_str())
    });
    if thing.is_empty() || thing.len() > 8 || !named || !one_clause || asks_of_others {
        return;
    }
    pieces.truncate(end);
    pieces[0] = "show".to_owned();
}

/// How many pieces at the start of `pieces` say "look" the long way: "take a look",
/// "have a quick look", "take another peek". Said so, "take" and "have" are no verbs of
/// their own ("take back my approval", "have the MR merged").
fn a_look_taken(pieces: &[String]) -> Option<usize> {
    let said =
        |at: usize, words: &[&str]| pieces.get(at).is_some_and(|p| words.contains(&p.as_str()));
    if !said(0, &["take", "taking", "took", "have", "having", "had"]) || !said(1, &["a", "another"])
    {
        return None;
    }
    let noun = if said(2, &["quick", "closer", "proper", "good"]) {
        3
    } else {
        2
    };
    said(noun, &["look", "peek", "glance"]).then_some(noun + 1)
}

/// `acme/web#88` and `acme/web!12`: a project's path and an issue or merge request of it.
fn project_reference(piece: &str) -> Option<Vec<String>> {
    let at = piece.rfind(['#', '!'])?;
    let (path, reference) = piece.split_at(at);
    let number = reference[1..].trim_end_matches([',', '.', ';', ':', '?', '!', ')']);
    (path.contains('/') && !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
        .then(|| vec![path.to_owned(), reference.to_owned()])
}

/// The singular of a plural noun by the English spelling rules: `policies` is `policy`,
/// `branches` `branch`, `rules` `rule`. A page's name followed by an id (`issues/1287`)
/// names one of its things; a list's phrase said in the singular names one too.
pub fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if ["xes", "ches", "shes", "sses"]
        .iter()
        .any(|e| word.ends_with(e))
    {
        word[..word.len() - 2].to_owned()
    } else if word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_owned()
    } else {
        word.to_owned()
    }
}

/// A GitLab page's web address as the words it names, people paste them: the part before
/// GitLab's `/-/` is the project or group (one name), the part after names the page in
/// GitLab's own words (`merge_requests/42/diffs` reads "merge requests 42 diffs",
/// `blob/main/src/app.rs#L12` reads "blob main src app.rs line 12"), a query's keys and
/// values are words too. Any other address is left whole: it names a value (a webhook's
/// target, an environment's URL).
fn page_words(piece: &str) -> Option<Vec<String>> {
    let address = piece
        .strip_prefix("https://")
        .or_else(|| piece.strip_prefix("http://"))?;
    let address = address.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
    let (_host, path) = address.split_once('/')?;
    let (owner, page) = path.split_once("/-/")?;
    let mut words = vec![owner.to_owned()];
    let mut add = |text: &str, separators: &[char]| {
        words.extend(
            text.split(separators)
                .filter(|w| !w.is_empty())
                .map(str::to_owned),
        );
    };
    let (page, anchor) = page.split_once('#').unwrap_or((page, ""));
    let (page, query) = page.split_once('?').unwrap_or((page, ""));
    let segments: Vec<&str> = page.split('/').collect();
    for (at, segment) in segments.iter().enumerate() {
        // A page's name in GitLab's words (`merge_requests`, `ci_cd`); a file name or a
        // branch keeps its own.
        if segment.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            let names_one = segments
                .get(at + 1)
                .is_some_and(|next| !next.is_empty() && next.chars().all(|c| c.is_ascii_digit()));
            match segment.rsplit_once('_') {
                _ if !names_one => add(segment, &['_']),
                Some((words, last)) => {
                    add(words, &['_']);
                    add(&singular(last), &[]);
                }
                None => add(&singular(segment), &[]),
            }
        } else {
            add(segment, &[]);
        }
    }
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        add(key, &['_', '[', ']']);
        add(value, &[]);
    }
    match anchor.strip_prefix('l') {
        Some(line) if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) => {
            add("line", &[]);
            add(line, &[]);
        }
        _ => add(anchor, &['_']),
    }
    Some(words)
}

/// A request's terms: lower-case words without filler, split at `/ . _ -`, numbers as one
/// term, `!12`, `#34`, `&5`, `$7`, `@sam` and `%v1` as a reference term of their kind (and
/// `@sam` as nothing more), each word without a plural or tense ending; a GitLab page's web
/// address as the words it names.
pub fn terms(request: &str) -> Vec<String> {
    let lower = pieces(request).join(" ");
    let mut terms = Vec::new();
    let is_word_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.-/".contains(c);
    let mut rest = lower.as_str();
    while !rest.is_empty() {
        let Some(start) = rest.find(|c: char| is_word_char(c) || SIGILS.contains(c)) else {
            break;
        };
        // Whether the sigil ends a word (`jane@example.com`) rather than starting one.
        let glued = lower[..lower.len() - rest.len() + start]
            .chars()
            .next_back()
            .is_some_and(is_word_char);
        rest = &rest[start..];
        let mut word = rest;
        let mut sigil = None;
        if let Some(said) = word.chars().next().filter(|c| SIGILS.contains(*c)) {
            word = &word[1..];
            // `&12` and `$7` are references by number only: `$CI_COMMIT_SHA` is a variable.
            let numbered = "&$".contains(said);
            if word.starts_with(|c: char| {
                if numbered {
                    c.is_ascii_digit()
                } else {
                    is_word_char(c)
                }
            }) {
                terms.push(format!("{said}ref"));
                sigil = Some(said);
            }
        }
        let end = word.find(|c: char| !is_word_char(c)).unwrap_or(word.len());
        // Whom `@sam` names says nothing of what is asked of them: people ask the same of
        // anyone, and a name is as rare a word as any. (An address's domain and a scoped
        // package, `@acme/client`, are words.)
        if sigil == Some('@') && !glued && !word[..end].contains('/') {
            rest = &rest[(rest.len() - word.len() + end).max(1)..];
            continue;
        }
        for part in word[..end].split(['/', '.', '_', '-']) {
            if part.is_empty() || FILLER.contains(&part) {
                continue;
            }
            if part.chars().all(|c| c.is_ascii_digit()) {
                terms.push("#number".to_owned());
            } else {
                terms.push(ending_removed(part).to_owned());
            }
        }
        let consumed = rest.len() - word.len() + end;
        rest = &rest[consumed.max(1)..];
    }
    terms
}

/// Whether a term of `terms` stands for a reference: a number, or a sigil's `#ref`.
pub fn is_reference(term: &str) -> bool {
    term == "#number"
        || term
            .strip_suffix("ref")
            .is_some_and(|sigil| sigil.len() == 1 && SIGILS.contains(sigil))
}

/// A word without `-ing`, `-ed`, `-es` or `-s`, when at least three letters remain.
fn ending_removed(word: &str) -> &str {
    for ending in ["ing", "ed", "es", "s"] {
        if word.len() > ending.len() + 2
            && let Some(stem) = word.strip_suffix(ending)
        {
            return stem;
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_look_taken_is_a_look() {
        assert_eq!(pieces("take a look at !12"), ["look", "at", "!12"]);
        assert_eq!(
            pieces("Have a quick look at job 5"),
            ["look", "at", "job", "5"]
        );
        assert_eq!(
            pieces("take back my approval"),
            ["take", "back", "my", "approval"]
        );
        assert_eq!(pieces("take a break"), ["take", "a", "break"]);
    }

    #[test]
    fn asking_to_be_shown_is_show() {
        assert_eq!(pieces("give me !12"), ["show", "!12"]);
        assert_eq!(pieces("Let me see #34"), ["show", "#34"]);
        assert_eq!(pieces("pull up job 442"), ["show", "job", "442"]);
        assert_eq!(pieces("any news on !12?"), ["show", "!12?"]);
        assert_eq!(pieces("catch me up on #34"), ["show", "#34"]);
        assert_eq!(pieces("how is !12 doing?"), ["show", "!12"]);
        assert_eq!(pieces("how's the import going"), ["show", "the", "import"]);
        assert_eq!(pieces("where is !12 at"), ["show", "!12"]);
        assert_eq!(pieces("is #34 done?"), ["show", "#34"]);
        assert_eq!(pieces("did pipeline 99 pass"), ["show", "pipeline", "99"]);
        assert_eq!(
            pieces("has !12 in acme/web been merged yet?"),
            ["show", "!12", "in", "acme/web"]
        );
        assert_eq!(pieces("is job 442 still running"), ["show", "job", "442"]);
        assert_eq!(pieces("is @bob blocked?"), ["show", "@bob"]);
        assert_eq!(pieces("was !12 merged or not?"), ["show", "!12"]);
        assert_eq!(pieces("how's going"), ["how's", "going"]);
        // Said otherwise, the words keep their own sense.
        assert_eq!(pieces("how is !12"), ["how", "is", "!12"]);
        assert_eq!(
            pieces("where is the runbook"),
            ["where", "is", "the", "runbook"]
        );
        assert_eq!(
            pieces("bring up to date !12"),
            ["bring", "up", "to", "date", "!12"]
        );
        assert_eq!(pieces("let me know when job 5 ends")[..2], ["let", "me"]);
        assert_eq!(pieces("update on !12")[0], "update");
        assert_eq!(
            pieces("has the deploy finished?"),
            ["has", "the", "deploy", "finished?"]
        );
        assert_eq!(pieces("did any of the jobs of pipeline 9 fail")[0], "did");
        assert_eq!(pieces("is #34 blocked"), ["is", "#34", "blocked"]);
        assert_eq!(pieces("is @bob done")[0], "is");
        assert_eq!(pieces("are there issues from #34 still open")[0], "are");
    }

    #[test]
    fn terms_drop_filler_and_endings_and_read_references() {
        assert_eq!(
            terms("Show me the broken gadgets of !12 on train/2.4"),
            [
                "show", "broken", "gadget", "!ref", "#number", "train", "#number", "#number"
            ]
        );
        assert_eq!(
            terms("#42 blocks @sam, not sam.doe"),
            ["#ref", "#number", "block", "@ref", "not", "sam", "doe"]
        );
        assert_eq!(
            terms("close &12, print $ci_job_id"),
            ["close", "&ref", "#number", "print", "ci", "job", "id"]
        );
        assert_eq!(
            terms("mail sam@acme.io about @acme/ui"),
            [
                "mail", "sam", "@ref", "acme", "io", "about", "@ref", "acme", "ui"
            ]
        );
    }
}
