//! Workflow prompts (`prompts/*.yaml`): `prompts/list` and `prompts/get`.
//!
//! A prompt gathers its material by running read-only actions of the catalog through the
//! one dispatcher, like any call (policy, fitting, the result budget hold; a hidden or
//! failing action becomes a line saying what is missing), then renders its template. The
//! whole text stays within the prompt's stated byte budget: the longest sections are cut
//! to a common length first (`budget::shrink`), and a closing note lists everything left
//! out: sections cut, items beyond a step's `limit`, further pages, failed steps.
//!
//! build.rs has checked every prompt against the catalog (`src/codegen/prompts.rs`), so
//! its actions exist and read only, and its templates compile and name what exists.

pub mod model;

use std::sync::LazyLock;

use minijinja::{Environment, UndefinedBehavior, Value as Jinja};
use serde_json::{Map, Value, json};

use crate::catalog;
use crate::dispatch::{Dispatcher, Outcome};
use crate::output::budget;
use crate::policy::Policy;

pub use model::{ArgumentDef, Completion, PromptDef, StepDef};

static PROMPTS: LazyLock<Vec<PromptDef>> = LazyLock::new(|| {
    serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/prompts.json")))
        .expect("build.rs wrote the checked prompts")
});

/// Every prompt, by name.
pub fn all() -> &'static [PromptDef] {
    &PROMPTS
}

pub fn find(name: &str) -> Option<&'static PromptDef> {
    PROMPTS.iter().find(|p| p.name == name)
}

/// Whether this instance offers the prompt: the action of its first step, which gathers
/// what the others add to, is offered.
pub fn offered(prompt: &PromptDef, policy: &Policy) -> bool {
    prompt
        .steps
        .first()
        .and_then(|step| catalog::find(&step.action))
        .is_some_and(|action| policy.allows(action))
}

/// A rendered prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub text: String,
    /// What did not fit or could not be gathered, one line each.
    pub left_out: Vec<String>,
}

/// Why a prompt could not be rendered at all (a JSON-RPC error: the person's arguments).
#[derive(Debug, Clone, PartialEq)]
pub enum PromptError {
    Arguments(String),
    Template(String),
}

impl std::fmt::Display for PromptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Arguments(message) => f.write_str(message),
            Self::Template(message) => write!(f, "the prompt could not be rendered: {message}"),
        }
    }
}

/// The room kept for the closing note before it is known.
const NOTE_ROOM: usize = 400;

/// What one step gathered: a section per run (one, or one per item).
struct Gathered {
    step: &'static StepDef,
    skipped: bool,
    sections: Vec<Section>,
    /// Items `for_each` gave beyond `limit`, by label.
    beyond_limit: Vec<String>,
    total: usize,
}

impl Gathered {
    /// One line on how the step went, for a progress notification.
    fn summary(&self) -> String {
        let title = &self.step.title;
        if self.skipped {
            return format!("{title}: not needed");
        }
        let failed = self.sections.iter().filter(|s| !s.ok).count();
        let read = self.sections.len() - failed;
        let mut line = match self.sections.len() {
            1 if failed == 0 => format!("{title}: read"),
            _ => format!("{title}: {read} read"),
        };
        if failed > 0 {
            line.push_str(&format!(", {failed} not available"));
        }
        if !self.beyond_limit.is_empty() {
            line.push_str(&format!(", {} left out", self.beyond_limit.len()));
        }
        line
    }
}

struct Section {
    label: Option<String>,
    ok: bool,
    /// The Markdown, without the next-steps block (the prompt says what to do).
    text: String,
    data: Value,
    /// The next page, when the action returned a first page only.
    next_page: Option<u64>,
    /// The action shortened its own result (a patch or a file past its limit).
    truncated: bool,
}

/// Runs the prompt's steps through `dispatcher` and renders it within its budget.
pub async fn render(
    dispatcher: &Dispatcher,
    prompt: &'static PromptDef,
    arguments: &Map<String, Value>,
) -> Result<Rendered, PromptError> {
    let args = read_arguments(prompt, arguments)?;
    let environment = environment();
    let mut gathered: Vec<Gathered> = Vec::new();
    for (index, step) in prompt.steps.iter().enumerate() {
        let context = context(&args, &gathered, None);
        let stage = Stage {
            dispatcher,
            index,
            count: prompt.steps.len(),
        };
        let step = gather(&stage, &environment, step, &context).await?;
        stage.report(1.0, step.summary()).await;
        gathered.push(step);
    }
    fit(&environment, prompt, &args, gathered)
}

/// Where a prompt's gathering is, for a client that asked to hear (`notifications/progress`):
/// step `index` of `count`, a fraction of the way through its reads. Progress only grows,
/// as MCP requires: a step's own reads end before the whole step is reported done.
struct Stage<'a> {
    dispatcher: &'a Dispatcher,
    index: usize,
    count: usize,
}

impl Stage<'_> {
    async fn report(&self, fraction: f64, message: String) {
        let progress = self.index as f64 + fraction;
        self.dispatcher
            .context()
            .report(progress, Some(self.count as f64), message)
            .await;
    }
}

/// The arguments as texts; a missing required one or an unknown name is refused.
fn read_arguments(
    prompt: &PromptDef,
    arguments: &Map<String, Value>,
) -> Result<Map<String, Value>, PromptError> {
    let mut args = Map::new();
    for (name, value) in arguments {
        if !prompt.arguments.iter().any(|a| a.name == *name) {
            let names: Vec<&str> = prompt.arguments.iter().map(|a| a.name.as_str()).collect();
            return Err(PromptError::Arguments(format!(
                "`{}` has no argument `{name}`; its arguments are {}.",
                prompt.name,
                names.join(", ")
            )));
        }
        let text = match value {
            Value::String(text) => text.trim().to_owned(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        // A completed number comes with its title (`42: Add rate limiting`).
        let numbered = prompt.arguments.iter().any(|a| {
            a.name == *name
                && matches!(
                    a.complete,
                    Some(Completion::MergeRequest | Completion::Issue | Completion::Pipeline)
                )
        });
        let text = if numbered {
            crate::complete::leading_number(&text).to_owned()
        } else {
            text
        };
        if !text.is_empty() {
            args.insert(name.clone(), Value::String(text));
        }
    }
    let missing: Vec<String> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !args.contains_key(&a.name))
        .map(|a| format!("`{}` ({})", a.name, a.description))
        .collect();
    if !missing.is_empty() {
        return Err(PromptError::Arguments(format!(
            "`{}` needs {}.",
            prompt.name,
            missing.join(" and ")
        )));
    }
    // Optional arguments not given are empty texts, so templates can test them.
    for argument in &prompt.arguments {
        args.entry(argument.name.clone())
            .or_insert(Value::String(String::new()));
    }
    Ok(args)
}

fn environment() -> Environment<'static> {
    let mut environment = Environment::new();
    environment.set_undefined_behavior(UndefinedBehavior::Chainable);
    environment.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    environment
}

/// What templates see: `args`, `steps` (each gathered step by id) and `item`.
fn context(args: &Map<String, Value>, gathered: &[Gathered], item: Option<&Value>) -> Value {
    let steps: Map<String, Value> = gathered
        .iter()
        .map(|g| (g.step.id.clone(), g.value()))
        .collect();
    let mut context = json!({"args": args, "steps": steps});
    if let Some(item) = item {
        context["item"] = item.clone();
    }
    context
}

impl Gathered {
    /// The step as templates see it: `ok`, `skipped`, `text` (every section), `data` (the
    /// first section's structure), `items` (each section), `total` and `shown`.
    fn value(&self) -> Value {
        let items: Vec<Value> = self
            .sections
            .iter()
            .map(|s| json!({"label": s.label, "ok": s.ok, "text": s.text, "data": s.data}))
            .collect();
        json!({
            "ok": !self.skipped && !self.sections.is_empty() && self.sections.iter().all(|s| s.ok),
            "skipped": self.skipped,
            "title": self.step.title,
            "text": self.text(),
            "data": self.sections.first().map_or(Value::Null, |s| s.data.clone()),
            "items": items,
            "total": self.total,
            "shown": self.sections.len(),
        })
    }

    /// Every section's Markdown, each item's under its label.
    fn text(&self) -> String {
        let parts: Vec<String> = self
            .sections
            .iter()
            .map(|section| match &section.label {
                Some(label) => format!("### {label}\n\n{}", section.text),
                None => section.text.clone(),
            })
            .collect();
        parts.join("\n\n")
    }
}

fn render_text(
    environment: &Environment<'_>,
    source: &str,
    context: &Value,
) -> Result<String, PromptError> {
    environment
        .render_str(source, Jinja::from(minijinja::value::Serde(context)))
        .map_err(|error| PromptError::Template(error.to_string()))
}

fn evaluate(
    environment: &Environment<'_>,
    source: &str,
    context: &Value,
) -> Result<Jinja, PromptError> {
    environment
        .compile_expression(source)
        .and_then(|expression| expression.eval(Jinja::from(minijinja::value::Serde(context))))
        .map_err(|error| PromptError::Template(error.to_string()))
}

/// Runs one step: not at all when `when` is false, once, or once per item of `for_each`.
async fn gather(
    stage: &Stage<'_>,
    environment: &Environment<'_>,
    step: &'static StepDef,
    context: &Value,
) -> Result<Gathered, PromptError> {
    let mut gathered = Gathered {
        step,
        skipped: false,
        sections: Vec::new(),
        beyond_limit: Vec::new(),
        total: 0,
    };
    if let Some(when) = &step.when
        && !evaluate(environment, when, context)?.is_true()
    {
        gathered.skipped = true;
        return Ok(gathered);
    }
    let Some(for_each) = &step.for_each else {
        gathered.total = 1;
        let params = params(environment, step, context)?;
        gathered
            .sections
            .push(run(stage.dispatcher, step, params, None).await);
        return Ok(gathered);
    };
    let items: Vec<Value> = match evaluate(environment, for_each, context)?.try_iter() {
        Ok(items) => items
            .map(|item| serde_json::to_value(&item).unwrap_or(Value::Null))
            .collect(),
        Err(_) => Vec::new(),
    };
    gathered.total = items.len();
    let limit = step.limit.unwrap_or(usize::MAX);
    let reads = items.len().min(limit);
    for (i, item) in items.iter().enumerate() {
        let mut context = context.clone();
        context["item"] = item.clone();
        let label = match &step.label {
            Some(label) => render_text(environment, label, &context)?,
            None => format!("{} {}", step.title, i + 1),
        };
        if i >= limit {
            gathered.beyond_limit.push(label);
            continue;
        }
        let params = params(environment, step, &context)?;
        // The step is reported done by `render`; each of its reads is a share before that.
        let fraction = (i + 1) as f64 / (reads + 1) as f64;
        stage
            .report(fraction, format!("{}: {label}", step.title))
            .await;
        gathered
            .sections
            .push(run(stage.dispatcher, step, params, Some(label)).await);
    }
    Ok(gathered)
}

/// The step's parameters: texts rendered (left out when empty), other values as written.
fn params(
    environment: &Environment<'_>,
    step: &StepDef,
    context: &Value,
) -> Result<Map<String, Value>, PromptError> {
    let mut params = Map::new();
    for (name, value) in &step.params {
        match value {
            Value::String(source) => {
                let text = render_text(environment, source, context)?;
                let text = text.trim();
                if !text.is_empty() {
                    params.insert(name.clone(), Value::String(text.to_owned()));
                }
            }
            other => {
                params.insert(name.clone(), other.clone());
            }
        }
    }
    Ok(params)
}

/// One action through the dispatcher, as any call.
async fn run(
    dispatcher: &Dispatcher,
    step: &StepDef,
    params: Map<String, Value>,
    label: Option<String>,
) -> Section {
    let outcome = match catalog::find(&step.action) {
        Some(action) => dispatcher.run(action, params, false).await,
        None => Outcome::error(format!("No action `{}` on this server.", step.action)),
    };
    // Under the template's own `##` heading (and an item's label, one level below it).
    let levels = if label.is_some() { 2 } else { 1 };
    let text = demote(&without_next_steps(&outcome.text), levels);
    if outcome.is_error {
        return Section {
            label,
            ok: false,
            text: format!("_Not available: {}_", one_line(&text)),
            data: Value::Null,
            next_page: None,
            truncated: false,
        };
    }
    let data = outcome.structured.map(Value::Object).unwrap_or(Value::Null);
    let next_page = data
        .get("pagination")
        .and_then(|p| p.get("next_page"))
        .and_then(Value::as_u64);
    let truncated = data.get("truncated") == Some(&Value::Bool(true));
    Section {
        label,
        ok: true,
        text,
        data,
        next_page,
        truncated,
    }
}

/// The Markdown before the `💡 Next steps` block.
fn without_next_steps(text: &str) -> String {
    match text.rfind("\n---\n💡 **Next steps:**") {
        Some(at) => text[..at].trim_end().to_owned(),
        None => text.trim_end().to_owned(),
    }
}

/// Markdown headings `levels` deeper (at most `######`), outside code fences.
fn demote(text: &str, levels: usize) -> String {
    let mut fence: Option<usize> = None;
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let ticks = line.chars().take_while(|&c| c == '`').count();
        match fence {
            Some(open) if ticks >= open && line.trim_end().len() == ticks => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                let hashes = line.chars().take_while(|&c| c == '#').count();
                if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
                    let deeper = (hashes + levels).min(6);
                    out.push_str(&"#".repeat(deeper));
                    out.push_str(&line[hashes..]);
                    continue;
                }
            }
        }
        out.push_str(line);
    }
    out
}

fn one_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    line.trim_end_matches('.').to_owned()
}

/// Renders the template, cutting the longest sections to a common length until the text
/// and its closing note fit the budget.
fn fit(
    environment: &Environment<'_>,
    prompt: &PromptDef,
    args: &Map<String, Value>,
    mut gathered: Vec<Gathered>,
) -> Result<Rendered, PromptError> {
    let mut left_out = gaps(&gathered);
    let full = render_text(
        environment,
        &prompt.template,
        &context(args, &gathered, None),
    )?;
    if full.len() + note(prompt, &left_out).len() <= prompt.budget {
        return Ok(finish(prompt, full, left_out));
    }
    // What the template adds around the sections.
    let originals: Vec<Vec<String>> = gathered
        .iter()
        .map(|g| g.sections.iter().map(|s| s.text.clone()).collect())
        .collect();
    let empty: Vec<Gathered> = gathered.iter().map(Gathered::emptied).collect();
    let frame = render_text(environment, &prompt.template, &context(args, &empty, None))?;
    let mut room = prompt.budget.saturating_sub(frame.len() + NOTE_ROOM);
    loop {
        let lengths: Vec<usize> = originals.iter().flatten().map(String::len).collect();
        let cap = budget::common_cap(&lengths, room, 0);
        let mut cuts = Vec::new();
        for (g, texts) in gathered.iter_mut().zip(&originals) {
            for (section, original) in g.sections.iter_mut().zip(texts) {
                if original.len() > cap {
                    section.text = budget::shrink(original, cap);
                    let name = match &section.label {
                        Some(label) => format!("{} ({label})", g.step.title),
                        None => g.step.title.clone(),
                    };
                    cuts.push(format!(
                        "{name}: cut to {} of {} bytes",
                        section.text.len(),
                        original.len()
                    ));
                } else {
                    section.text.clone_from(original);
                }
            }
        }
        left_out = cuts.into_iter().chain(gaps(&gathered)).collect();
        let text = render_text(
            environment,
            &prompt.template,
            &context(args, &gathered, None),
        )?;
        let over = (text.len() + note(prompt, &left_out).len()).saturating_sub(prompt.budget);
        if over == 0 || room == 0 {
            return Ok(finish(prompt, text, left_out));
        }
        room = room.saturating_sub(over);
    }
}

impl Gathered {
    /// The same step with no text, to measure what the template adds.
    fn emptied(&self) -> Self {
        Self {
            step: self.step,
            skipped: self.skipped,
            sections: self
                .sections
                .iter()
                .map(|s| Section {
                    label: s.label.clone(),
                    ok: s.ok,
                    text: String::new(),
                    data: s.data.clone(),
                    next_page: s.next_page,
                    truncated: s.truncated,
                })
                .collect(),
            beyond_limit: self.beyond_limit.clone(),
            total: self.total,
        }
    }
}

/// What the steps did not gather: failures, items beyond the limit, further pages.
fn gaps(gathered: &[Gathered]) -> Vec<String> {
    let mut gaps = Vec::new();
    for g in gathered {
        for section in &g.sections {
            let name = match &section.label {
                Some(label) => format!("{} ({label})", g.step.title),
                None => g.step.title.clone(),
            };
            if !section.ok {
                gaps.push(format!("{name}: not available"));
            } else if let Some(page) = section.next_page.filter(|_| !g.step.first_page) {
                gaps.push(format!(
                    "{name}: the first page only; more with `{}` and `page: {page}`",
                    g.step.action
                ));
            }
            if section.truncated {
                gaps.push(format!(
                    "{name}: shortened by `{}` itself, as its section says",
                    g.step.action
                ));
            }
        }
        if !g.beyond_limit.is_empty() {
            gaps.push(format!(
                "{}: {} of {} shown; not shown: {}",
                g.step.title,
                g.sections.len(),
                g.total,
                g.beyond_limit.join(", ")
            ));
        }
    }
    gaps
}

fn note(prompt: &PromptDef, left_out: &[String]) -> String {
    let budget = crate::output::format::number(prompt.budget as f64);
    if left_out.is_empty() {
        return format!(
            "\n\n---\n_Gathered within this prompt's budget of {budget} bytes; nothing was left out._\n"
        );
    }
    let mut note = format!("\n\n---\n**Left out** (this prompt's budget is {budget} bytes):\n");
    for line in left_out {
        note.push_str("- ");
        note.push_str(line);
        note.push('\n');
    }
    note
}

fn finish(prompt: &PromptDef, text: String, left_out: Vec<String>) -> Rendered {
    let mut text = text.trim_end().to_owned();
    text.push_str(&note(prompt, &left_out));
    Rendered { text, left_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_cap_fits_the_room() {
        assert_eq!(budget::common_cap(&[100, 10, 50], 1000, 0), 100);
        assert_eq!(budget::common_cap(&[100, 10, 50], 70, 0), 30);
        assert_eq!(budget::common_cap(&[100, 100], 0, 0), 0);
    }

    #[test]
    fn every_prompt_is_loaded() {
        assert!(all().len() >= 7, "{} prompts", all().len());
        for prompt in all() {
            assert!(find(&prompt.name).is_some());
        }
    }

    #[test]
    fn headings_go_deeper_outside_fences() {
        let text = "## Card\n\n````\n## not a heading\n````\n### Part\n#hashtag\n";
        assert_eq!(
            demote(text, 1),
            "### Card\n\n````\n## not a heading\n````\n#### Part\n#hashtag\n"
        );
        assert_eq!(demote("###### Deep\n", 2), "###### Deep\n");
    }

    #[test]
    fn next_steps_are_left_to_the_prompt() {
        let text = "## Card\n\n- a\n\n---\n💡 **Next steps:**\n- Open: `x.y`\n";
        assert_eq!(without_next_steps(text), "## Card\n\n- a");
    }
}
