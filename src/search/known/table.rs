//! The known requests as one block of little-endian arrays (`build`), read in place
//! (`Table`): each request's text and actions, each term's postings (request, BM25 weight)
//! and profile entries (action, count, BM25 weight in the action's profile, all its
//! requests as one text), and each profile's length.
//!
//! build.rs builds the block of the whole corpus once and the binary reads it where it
//! lies, so the weights a search adds are computed at build time with the very code the
//! runtime would have run. A search that leaves requests out (a file, to measure on it as
//! on requests never seen) builds its own block on the heap with `build`; one that leaves
//! one request out re-weighs that request's profiles from the counts (`Lengths`).

use std::borrow::Cow;
use std::collections::HashMap;

use super::parse;
use super::terms::terms;

/// Okapi BM25's saturation and length normalisation, at their textbook values.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The block's first bytes: what it is and its layout's version.
const MAGIC: &[u8; 8] = b"KNOWNRQ1";

/// The block's arrays, in the order they are written. `*Ends` arrays hold where each
/// element ends in the array that follows them (it starts where the previous one ends).
#[derive(Clone, Copy)]
enum Array {
    /// Per request: the end of its text in `Texts`.
    TextEnds,
    Texts,
    /// Per request: the end of its actions in `Actions`.
    ActionEnds,
    /// Action numbers (into `NameEnds`).
    Actions,
    /// Per action: the end of its id in `Names`.
    NameEnds,
    Names,
    /// Per term, in byte order: the end of its spelling in `Terms`.
    TermEnds,
    Terms,
    /// Per term: the end of its postings in `PostingRequests` and `PostingWeights`.
    PostingEnds,
    PostingRequests,
    PostingWeights,
    /// Per term: the end of its profile entries in `Profile*`.
    ProfileEnds,
    ProfileActions,
    ProfileCounts,
    ProfileWeights,
    /// Per action: its profile's length in terms.
    ProfileLengths,
}

const ARRAYS: usize = Array::ProfileLengths as usize + 1;
const HEADER: usize = MAGIC.len() + ARRAYS * 8;

/// The lengths of a set of texts (requests, or profiles) in terms, as BM25 weighs them.
pub struct Lengths {
    pub each: Vec<u32>,
    /// The average length of the texts that have any.
    average: f64,
    /// How many texts have any terms.
    texts: f64,
}

impl Lengths {
    pub fn new(each: Vec<u32>) -> Self {
        let texts = each.iter().filter(|l| **l > 0).count() as f64;
        let average = each.iter().map(|l| f64::from(*l)).sum::<f64>() / texts.max(1.0);
        Self {
            each,
            average,
            texts,
        }
    }

    /// The BM25 weight of a term found `count` times in text `text`, of the `with` texts
    /// that hold it.
    pub fn weight(&self, text: usize, count: f64, with: f64) -> f64 {
        let idf = (1.0 + (self.texts - with + 0.5) / (with + 0.5)).ln();
        let relative_length = f64::from(self.each[text]) / self.average.max(1.0);
        let norm = K1 * (1.0 - B + B * relative_length);
        idf * count * (K1 + 1.0) / (count + norm)
    }
}

/// The block of the requests in `files` (request files' texts) whose actions `known`
/// accepts (only those actions kept; a request left with none is left out).
pub fn build(files: &[&str], known: impl Fn(&str) -> bool) -> Vec<u8> {
    let mut requests: Vec<(&str, Vec<u32>)> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut numbers: HashMap<&str, u32> = HashMap::new();
    let mut terms_of = Vec::new();
    for text in files {
        for request in parse(text) {
            let actions: Vec<u32> = request
                .actions
                .iter()
                .filter(|id| known(id))
                .map(|id| {
                    *numbers.entry(id).or_insert_with(|| {
                        names.push(id);
                        names.len() as u32 - 1
                    })
                })
                .collect();
            if actions.is_empty() {
                continue;
            }
            terms_of.push(terms(request.request));
            requests.push((request.request, actions));
        }
    }

    // Each term's postings, in request order, weighed against the requests' lengths.
    let mut counts: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    for (number, terms) in terms_of.iter().enumerate() {
        let mut in_request: HashMap<&str, u32> = HashMap::new();
        for term in terms {
            *in_request.entry(term).or_default() += 1;
        }
        for (term, count) in in_request {
            counts.entry(term).or_default().push((number as u32, count));
        }
    }
    let lengths = Lengths::new(terms_of.iter().map(|t| t.len() as u32).collect());

    // Every action's requests as one text: its profile.
    let mut profile_counts: Vec<HashMap<&str, u32>> = vec![HashMap::new(); names.len()];
    let mut profile_lengths = vec![0u32; names.len()];
    for ((_, actions), terms) in requests.iter().zip(&terms_of) {
        for &action in actions {
            profile_lengths[action as usize] += terms.len() as u32;
            for term in terms {
                *profile_counts[action as usize].entry(term).or_default() += 1;
            }
        }
    }
    let mut profiles: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    for (action, counts) in profile_counts.iter().enumerate() {
        for (term, count) in counts {
            profiles
                .entry(term)
                .or_default()
                .push((action as u32, *count));
        }
    }
    let profile_lengths = Lengths::new(profile_lengths);

    let mut writer = Writer::default();
    writer.texts(requests.iter().map(|(text, _)| *text));
    writer.lists(requests.iter().map(|(_, actions)| actions.as_slice()));
    writer.texts(names.iter().copied());
    let mut sorted: Vec<&str> = counts.keys().copied().collect();
    sorted.sort_unstable();
    writer.texts(sorted.iter().copied());
    let postings = Weighed::new(&sorted, &counts, &lengths);
    writer.u32s(&postings.ends);
    writer.u32s(&postings.texts);
    writer.f64s(&postings.weights);
    let profiles = Weighed::new(&sorted, &profiles, &profile_lengths);
    writer.u32s(&profiles.ends);
    writer.u32s(&profiles.texts);
    writer.u32s(&profiles.counts);
    writer.f64s(&profiles.weights);
    writer.u32s(&profile_lengths.each);
    writer.finish()
}

/// Each term's entries (text, count of the term in it) with the term's BM25 weight in each.
struct Weighed {
    /// Per term, where its entries end.
    ends: Vec<u32>,
    texts: Vec<u32>,
    counts: Vec<u32>,
    weights: Vec<f64>,
}

impl Weighed {
    /// The entries of `terms` in `lists`, weighed against the texts' `lengths`.
    fn new(terms: &[&str], lists: &HashMap<&str, Vec<(u32, u32)>>, lengths: &Lengths) -> Self {
        let mut weighed = Self {
            ends: Vec::new(),
            texts: Vec::new(),
            counts: Vec::new(),
            weights: Vec::new(),
        };
        for term in terms {
            let list = lists.get(term).map_or(&[][..], Vec::as_slice);
            let with = list.len() as f64;
            for &(text, count) in list {
                weighed.texts.push(text);
                weighed.counts.push(count);
                weighed
                    .weights
                    .push(lengths.weight(text as usize, f64::from(count), with));
            }
            weighed.ends.push(weighed.texts.len() as u32);
        }
        weighed
    }
}

/// Writes the arrays one after the other, then the header before them.
#[derive(Default)]
struct Writer {
    data: Vec<u8>,
    /// Each array's (start in `data`, length in bytes).
    arrays: Vec<(u32, u32)>,
}

impl Writer {
    fn array(&mut self, bytes: impl IntoIterator<Item = u8>) {
        let start = self.data.len();
        self.data.extend(bytes);
        self.arrays
            .push((start as u32, (self.data.len() - start) as u32));
    }

    fn u32s(&mut self, values: &[u32]) {
        self.array(values.iter().flat_map(|v| v.to_le_bytes()));
    }

    fn f64s(&mut self, values: &[f64]) {
        self.array(values.iter().flat_map(|v| v.to_le_bytes()));
    }

    /// Texts as their ends, then their bytes.
    fn texts<'a>(&mut self, texts: impl Iterator<Item = &'a str> + Clone) {
        self.u32s(&ends(texts.clone().map(str::len)));
        self.array(texts.flat_map(str::bytes));
    }

    /// Lists of numbers as their ends, then their numbers.
    fn lists<'a>(&mut self, lists: impl Iterator<Item = &'a [u32]> + Clone) {
        self.u32s(&ends(lists.clone().map(<[u32]>::len)));
        let all: Vec<u32> = lists.flatten().copied().collect();
        self.u32s(&all);
    }

    fn finish(self) -> Vec<u8> {
        let mut block = MAGIC.to_vec();
        for (start, length) in &self.arrays {
            block.extend((start + HEADER as u32).to_le_bytes());
            block.extend(length.to_le_bytes());
        }
        block.extend(self.data);
        block
    }
}

/// Where each of a run of elements of `lengths` ends, the first starting at 0.
fn ends(lengths: impl Iterator<Item = usize>) -> Vec<u32> {
    lengths
        .scan(0u32, |end, length| {
            *end += length as u32;
            Some(*end)
        })
        .collect()
}

/// A block `build` wrote, read where it lies (in the binary, or on the heap).
pub struct Table {
    bytes: Cow<'static, [u8]>,
    /// Each array's byte range in `bytes`.
    arrays: [(usize, usize); ARRAYS],
}

/// A term's postings: the requests that hold it and its weight in each.
pub struct Postings<'a> {
    requests: &'a [u8],
    weights: &'a [u8],
}

impl Postings<'_> {
    pub fn len(&self) -> usize {
        self.requests.len() / 4
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        pairs(
            self.requests,
            self.weights,
            u32::from_le_bytes,
            f64::from_le_bytes,
        )
    }
}

/// Each request's actions (`Table::request_actions`).
pub struct RequestActions<'a> {
    ends: &'a [u8],
    actions: &'a [u8],
}

impl RequestActions<'_> {
    /// The actions (numbers, `Table::action`) that answer request `request`.
    pub fn of(&self, request: usize) -> impl Iterator<Item = u32> + '_ {
        let (start, end) = span(self.ends, request);
        u32s(&self.actions[start * 4..end * 4])
    }
}

/// Where element `index` of the array after an `*Ends` array (`ends`, its bytes) lies: from
/// where the element before it ends to where it ends.
fn span(ends: &[u8], index: usize) -> (usize, usize) {
    let end = |index: usize| u32::from_le_bytes(fixed(&ends[index * 4..index * 4 + 4])) as usize;
    (index.checked_sub(1).map_or(0, end), end(index))
}

/// A term's profile entries: the actions whose profile holds it, how many times, and its
/// weight in that profile.
pub struct Profile<'a> {
    actions: &'a [u8],
    counts: &'a [u8],
    weights: &'a [u8],
}

impl Profile<'_> {
    pub fn counts(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        pairs(
            self.actions,
            self.counts,
            u32::from_le_bytes,
            u32::from_le_bytes,
        )
    }

    pub fn weights(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        pairs(
            self.actions,
            self.weights,
            u32::from_le_bytes,
            f64::from_le_bytes,
        )
    }
}

/// Two columns read side by side. Zipping the chunks before decoding them keeps the pair
/// one indexed loop the compiler sees through; decoding each from a `[u8; N]` is one load,
/// where an array assembled byte by byte was eight (in the hottest loop of a search).
fn pairs<'a, A, B, const M: usize, const N: usize>(
    left: &'a [u8],
    right: &'a [u8],
    first: fn([u8; M]) -> A,
    second: fn([u8; N]) -> B,
) -> impl Iterator<Item = (A, B)> + use<'a, A, B, M, N> {
    left.chunks_exact(M)
        .zip(right.chunks_exact(N))
        .map(move |(l, r)| (first(fixed(l)), second(fixed(r))))
}

fn u32s(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks_exact(4).map(|b| u32::from_le_bytes(fixed(b)))
}

/// A chunk of exactly `N` bytes as an array (`chunks_exact` makes the check free).
fn fixed<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes.try_into().expect("a chunk of N bytes")
}

impl Table {
    /// Reads a block `build` wrote; `None` when it is not one (another layout's).
    pub fn read(bytes: Cow<'static, [u8]>) -> Option<Self> {
        if bytes.len() < HEADER || !bytes.starts_with(MAGIC) {
            return None;
        }
        let mut arrays = [(0, 0); ARRAYS];
        for (number, array) in arrays.iter_mut().enumerate() {
            let at = MAGIC.len() + number * 8;
            let word =
                |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
            let (start, length) = (word(at) as usize, word(at + 4) as usize);
            if start + length > bytes.len() {
                return None;
            }
            *array = (start, start + length);
        }
        let table = Self { bytes, arrays };
        let requests = table.count(Array::TextEnds);
        let terms = table.count(Array::TermEnds);
        let consistent = table.count(Array::ActionEnds) == requests
            && table.count(Array::PostingEnds) == terms
            && table.count(Array::ProfileEnds) == terms
            && table.count(Array::ProfileLengths) == table.count(Array::NameEnds);
        consistent.then_some(table)
    }

    fn bytes(&self, array: Array) -> &[u8] {
        let (start, end) = self.arrays[array as usize];
        &self.bytes[start..end]
    }

    /// The number of u32s in `array`.
    fn count(&self, array: Array) -> usize {
        self.bytes(array).len() / 4
    }

    fn slice(&self, ends: Array, items: Array, index: usize, size: usize) -> &[u8] {
        let (start, end) = span(self.bytes(ends), index);
        &self.bytes(items)[start * size..end * size]
    }

    /// The whole block.
    #[cfg(test)]
    pub fn block(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether the block is read where it lies (not a copy on the heap).
    #[cfg(test)]
    pub fn in_place(&self) -> bool {
        matches!(self.bytes, Cow::Borrowed(_))
    }

    /// How many requests there are.
    pub fn requests(&self) -> usize {
        self.count(Array::TextEnds)
    }

    /// Request `request`'s text.
    pub fn request(&self, request: usize) -> &str {
        std::str::from_utf8(self.request_bytes(request)).unwrap_or_default()
    }

    /// Whether request `request` says `text`.
    pub fn request_is(&self, request: usize, text: &str) -> bool {
        self.request_bytes(request) == text.as_bytes()
    }

    fn request_bytes(&self, request: usize) -> &[u8] {
        self.slice(Array::TextEnds, Array::Texts, request, 1)
    }

    /// The actions (numbers, `action`) that answer each request, read through arrays
    /// looked up once: a search reads them for every request it touched (some 4,000),
    /// and finding the arrays in the block again for each was 4% of its time.
    pub fn request_actions(&self) -> RequestActions<'_> {
        RequestActions {
            ends: self.bytes(Array::ActionEnds),
            actions: self.bytes(Array::Actions),
        }
    }

    /// How many actions the requests name.
    pub fn actions(&self) -> usize {
        self.count(Array::NameEnds)
    }

    /// Action `action`'s id.
    pub fn action(&self, action: usize) -> &str {
        std::str::from_utf8(self.slice(Array::NameEnds, Array::Names, action, 1))
            .unwrap_or_default()
    }

    /// Term `term`'s number, if some request holds it.
    pub fn term(&self, term: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.count(Array::TermEnds));
        while low < high {
            let middle = (low + high) / 2;
            match self
                .slice(Array::TermEnds, Array::Terms, middle, 1)
                .cmp(term.as_bytes())
            {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// Term `term`'s postings.
    pub fn postings(&self, term: usize) -> Postings<'_> {
        Postings {
            requests: self.slice(Array::PostingEnds, Array::PostingRequests, term, 4),
            weights: self.slice(Array::PostingEnds, Array::PostingWeights, term, 8),
        }
    }

    /// Term `term`'s profile entries.
    pub fn profile(&self, term: usize) -> Profile<'_> {
        Profile {
            actions: self.slice(Array::ProfileEnds, Array::ProfileActions, term, 4),
            counts: self.slice(Array::ProfileEnds, Array::ProfileCounts, term, 4),
            weights: self.slice(Array::ProfileEnds, Array::ProfileWeights, term, 8),
        }
    }

    /// Each action's profile length, in terms.
    pub fn profile_lengths(&self) -> Vec<u32> {
        u32s(self.bytes(Array::ProfileLengths)).collect()
    }
}
