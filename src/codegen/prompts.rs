//! Reads and checks `prompts/*.yaml` against the checked catalog (build time only).
//!
//! A prompt may run only read-only actions that exist, with parameters those actions
//! have (every required one given); its templates must compile, and name only its own
//! arguments, its steps (a step only the steps before it) and, with `for_each`, `item`.
//! Every problem is reported at once, naming the file, the prompt and the key. The
//! checked prompts are written as JSON for the runtime (`src/prompts/model.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::Diagnostic;
use super::resolve::{Action, Catalog};

#[path = "../prompts/model.rs"]
pub mod model;

use model::{PromptDef, StepDef};

/// The folder beside `actions/` that holds the prompts.
pub const FOLDER: &str = "prompts";

/// The smallest and largest budgets a prompt may state, in bytes.
const BUDGET_RANGE: std::ops::RangeInclusive<usize> = 2_000..=100_000;

/// Checks every prompt in `dir`; the prompts as JSON, sorted by name.
pub fn check(dir: &Path, catalog: &Catalog) -> Result<String, Vec<Diagnostic>> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
            .collect(),
        Err(error) => {
            return Err(vec![Diagnostic::file(
                dir,
                format!("cannot read the directory: {error}"),
            )]);
        }
    };
    files.sort();
    let mut problems = Vec::new();
    let mut prompts = Vec::new();
    for file in &files {
        match parse(file) {
            Ok(prompt) => {
                problems.extend(check_prompt(file, &prompt, catalog));
                prompts.push(prompt);
            }
            Err(problem) => problems.push(problem),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(serde_json::to_string(&prompts).expect("prompts serialize"))
}

fn parse(file: &Path) -> Result<PromptDef, Diagnostic> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| Diagnostic::file(file, format!("cannot read the file: {error}")))?;
    let name = stem(file);
    super::load::deserialize_yaml(&text)
        .map_err(|(key, message)| Diagnostic::prompt(file, &name, &key, message))
}

fn stem(file: &Path) -> String {
    file.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn find<'c>(catalog: &'c Catalog, id: &str) -> Option<&'c Action> {
    catalog
        .domains
        .iter()
        .flat_map(|d| &d.actions)
        .find(|a| a.id == id)
}

/// Every problem of one prompt.
fn check_prompt(file: &Path, prompt: &PromptDef, catalog: &Catalog) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let mut problem = |key: &str, message: String| {
        problems.push(Diagnostic::prompt(file, &prompt.name, key, message));
    };
    if prompt.name != stem(file) {
        problem(
            "name",
            format!(
                "the file of prompt `{}` must be named `{}.yaml`",
                prompt.name, prompt.name
            ),
        );
    }
    if prompt.name.is_empty()
        || !prompt
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        problem(
            "name",
            "a prompt's name is lowercase words joined by `_`".to_owned(),
        );
    }
    for (key, text) in [
        ("title", &prompt.title),
        ("description", &prompt.description),
    ] {
        if text.trim().is_empty() {
            problem(key, "must not be empty".to_owned());
        }
    }
    if !BUDGET_RANGE.contains(&prompt.budget) {
        problem(
            "budget",
            format!(
                "{} bytes is outside {}..={}",
                prompt.budget,
                BUDGET_RANGE.start(),
                BUDGET_RANGE.end()
            ),
        );
    }
    let mut arguments = BTreeSet::new();
    for (i, argument) in prompt.arguments.iter().enumerate() {
        if !arguments.insert(argument.name.as_str()) {
            problem(
                &format!("arguments[{i}].name"),
                format!("argument `{}` is declared twice", argument.name),
            );
        }
        if argument.description.trim().is_empty() {
            problem(
                &format!("arguments[{i}].description"),
                "must not be empty".to_owned(),
            );
        }
    }
    let environment = minijinja::Environment::new();
    let mut steps: Vec<&str> = Vec::new();
    if prompt.steps.is_empty() {
        problem(
            "steps",
            "a prompt gathers something: give it steps".to_owned(),
        );
    }
    for (i, step) in prompt.steps.iter().enumerate() {
        let at = format!("steps[{i}]");
        if steps.contains(&step.id.as_str()) {
            problem(
                &format!("{at}.id"),
                format!("step `{}` is declared twice", step.id),
            );
        }
        check_step(&at, step, catalog, &mut problem);
        let scope = Scope {
            arguments: &arguments,
            steps: &steps,
            item: step.for_each.is_some(),
        };
        for (name, value) in &step.params {
            if let serde_json::Value::String(text) = value {
                check_template(
                    &environment,
                    &format!("{at}.params.{name}"),
                    text,
                    &scope,
                    &mut problem,
                );
            }
        }
        if let Some(label) = &step.label {
            check_template(
                &environment,
                &format!("{at}.label"),
                label,
                &scope,
                &mut problem,
            );
        }
        let before = Scope {
            item: false,
            ..scope
        };
        for (key, expression) in [("when", &step.when), ("for_each", &step.for_each)] {
            if let Some(expression) = expression {
                let scope = if key == "when" { &scope } else { &before };
                check_expression(
                    &environment,
                    &format!("{at}.{key}"),
                    expression,
                    scope,
                    &mut problem,
                );
            }
        }
        steps.push(&step.id);
    }
    let all = Scope {
        arguments: &arguments,
        steps: &steps,
        item: false,
    };
    check_template(
        &environment,
        "template",
        &prompt.template,
        &all,
        &mut problem,
    );
    problems
}

/// The action of a step: it exists, reads only, and gets parameters it has.
fn check_step(at: &str, step: &StepDef, catalog: &Catalog, problem: &mut impl FnMut(&str, String)) {
    if step.title.trim().is_empty() {
        problem(&format!("{at}.title"), "must not be empty".to_owned());
    }
    if step.for_each.is_none() && (step.limit.is_some() || step.label.is_some()) {
        problem(
            &format!("{at}.for_each"),
            "`limit` and `label` are for a step with `for_each`".to_owned(),
        );
    }
    let Some(action) = find(catalog, &step.action) else {
        let near = catalog
            .domains
            .iter()
            .flat_map(|d| &d.actions)
            .map(|a| (super::text::edit_distance(&step.action, &a.id), &a.id))
            .min();
        let hint = near
            .filter(|(distance, _)| *distance <= 3)
            .map(|(_, id)| format!(" (did you mean `{id}`?)"))
            .unwrap_or_default();
        problem(
            &format!("{at}.action"),
            format!("no action `{}`{hint}", step.action),
        );
        return;
    };
    if !action.safety.read_only {
        problem(
            &format!("{at}.action"),
            format!(
                "`{}` changes GitLab; a prompt only reads (it runs when a person picks it, before anyone approves anything)",
                action.id
            ),
        );
    }
    for name in step.params.keys() {
        let known = action
            .params
            .iter()
            .any(|p| p.name == *name || p.aliases.iter().any(|a| a == name));
        if !known {
            let names: Vec<&str> = action.params.iter().map(|p| p.name.as_str()).collect();
            problem(
                &format!("{at}.params.{name}"),
                format!(
                    "`{}` has no parameter `{name}` (it has {})",
                    action.id,
                    names.join(", ")
                ),
            );
        }
    }
    for required in action.params.iter().filter(|p| p.required) {
        let given = std::iter::once(&required.name)
            .chain(&required.aliases)
            .any(|name| step.params.contains_key(name));
        if !given {
            problem(
                &format!("{at}.params"),
                format!("`{}` needs `{}`", action.id, required.name),
            );
        }
    }
}

/// What a template may name.
#[derive(Clone, Copy)]
struct Scope<'a> {
    arguments: &'a BTreeSet<&'a str>,
    steps: &'a [&'a str],
    item: bool,
}

impl Scope<'_> {
    /// The problem with a variable a template uses (`args.project_id`, `steps.mr.text`).
    fn problem(&self, variable: &str) -> Option<String> {
        let mut parts = variable.split('.');
        let root = parts.next().unwrap_or_default();
        let name = parts.next();
        match (root, name) {
            ("args", Some(name)) if self.arguments.contains(name) => None,
            ("args", Some(name)) => Some(format!("`args.{name}` is not an argument of the prompt")),
            ("steps", Some(name)) if self.steps.contains(&name) => None,
            ("steps", Some(name)) => Some(format!(
                "`steps.{name}` is not a step before this point (steps so far: {})",
                if self.steps.is_empty() {
                    "none".to_owned()
                } else {
                    self.steps.join(", ")
                }
            )),
            ("item", _) if self.item => None,
            ("item", _) => Some("`item` exists only in a step with `for_each`".to_owned()),
            _ => Some(format!(
                "`{variable}` is unknown; a prompt's templates name `args.<argument>`, `steps.<step>` and, with `for_each`, `item`"
            )),
        }
    }
}

fn check_template(
    environment: &minijinja::Environment<'_>,
    key: &str,
    source: &str,
    scope: &Scope<'_>,
    problem: &mut impl FnMut(&str, String),
) {
    match environment.template_from_str(source) {
        Ok(template) => check_names(template.undeclared_variables(true), key, scope, problem),
        Err(error) => problem(key, format!("not a template: {error}")),
    }
}

fn check_expression(
    environment: &minijinja::Environment<'_>,
    key: &str,
    source: &str,
    scope: &Scope<'_>,
    problem: &mut impl FnMut(&str, String),
) {
    match environment.compile_expression(source) {
        Ok(expression) => {
            check_names(expression.undeclared_variables(true), key, scope, problem);
        }
        Err(error) => problem(key, format!("not an expression: {error}")),
    }
}

/// Each variable a template or expression uses, in order, against what it may name.
fn check_names(
    used: std::collections::HashSet<String>,
    key: &str,
    scope: &Scope<'_>,
    problem: &mut impl FnMut(&str, String),
) {
    let used: BTreeSet<String> = used.into_iter().collect();
    for variable in used {
        if let Some(message) = scope.problem(&variable) {
            problem(key, message);
        }
    }
}
