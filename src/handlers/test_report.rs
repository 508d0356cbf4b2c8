//! A pipeline's test report, failures first, within the result's byte budget.
//!
//! GitLab answers every test case of every suite (thousands of passing tests, megabytes);
//! what a person needs is the counts and the failures. Cases are read one at a time and
//! only failed and erroring ones are kept. Each failure gets its message (first lines) in
//! the table and the start of its output in one fenced block; failures are added until
//! they would take more than half the result budget, and the result says how many were
//! left out and how to see them.

use std::fmt;

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, de};
use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::pipeline::test_report;
use crate::catalog::generated::types::{TestFailure, TestSuiteSummary};

/// The most failures kept while reading, whatever the budget.
const MAX_KEPT: usize = 5000;
/// A failure's message in the table: its first lines, this long at most.
const MESSAGE_CHARS: usize = 300;
const MESSAGE_LINES: usize = 3;
/// The start of a failure's output.
const OUTPUT_LINES: usize = 25;
const OUTPUT_CHARS: usize = 2000;

#[derive(Deserialize)]
struct Report {
    #[serde(default)]
    total_time: f64,
    #[serde(default)]
    total_count: i64,
    #[serde(default)]
    success_count: i64,
    #[serde(default)]
    failed_count: i64,
    #[serde(default)]
    skipped_count: i64,
    #[serde(default)]
    error_count: i64,
    #[serde(default)]
    test_suites: Vec<Suite>,
}

#[derive(Deserialize)]
struct Suite {
    name: String,
    #[serde(default)]
    total_time: f64,
    #[serde(default)]
    total_count: i64,
    #[serde(default)]
    success_count: i64,
    #[serde(default)]
    failed_count: i64,
    #[serde(default)]
    skipped_count: i64,
    #[serde(default)]
    error_count: i64,
    #[serde(default)]
    suite_error: Option<String>,
    #[serde(default)]
    test_cases: Failing,
}

#[derive(Deserialize)]
struct Case {
    #[serde(default)]
    status: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    classname: Option<String>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    execution_time: Option<f64>,
    /// Text, or the failure element (`message`, `type`, `__content__`).
    #[serde(default)]
    system_output: Option<Value>,
    #[serde(default)]
    stack_trace: Option<String>,
    #[serde(default)]
    recent_failures: Option<RecentFailures>,
}

#[derive(Deserialize)]
struct RecentFailures {
    count: Option<i64>,
}

impl Case {
    fn failing(&self) -> bool {
        matches!(self.status.as_str(), "failed" | "error")
    }

    /// The failure's message: the element's `message`, else the output's first lines.
    fn message(&self) -> Option<String> {
        let from_element = self
            .system_output
            .as_ref()
            .and_then(|o| o.get("message"))
            .and_then(Value::as_str);
        let element_text = match &self.system_output {
            Some(Value::String(text)) => Some(text.as_str()),
            Some(Value::Object(map)) => map.get("__content__").and_then(Value::as_str),
            _ => None,
        };
        let text = from_element
            .or(element_text)
            .or(self.stack_trace.as_deref())?;
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(MESSAGE_LINES)
            .collect();
        (!lines.is_empty()).then(|| shorten(&lines.join(" "), MESSAGE_CHARS))
    }

    /// The failure's output: the stack trace, else the element's text.
    fn output(&self) -> Option<&str> {
        let element = match &self.system_output {
            Some(Value::String(text)) => Some(text.as_str()),
            Some(Value::Object(map)) => map.get("__content__").and_then(Value::as_str),
            _ => None,
        };
        self.stack_trace
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .or(element)
            .filter(|t| !t.trim().is_empty())
    }
}

/// A suite's test cases, of which only the failing ones are kept as they are read.
#[derive(Default)]
struct Failing(Vec<Case>);

impl<'de> Deserialize<'de> for Failing {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Cases;
        impl<'de> Visitor<'de> for Cases {
            type Value = Failing;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of test cases")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Failing, A::Error> {
                let mut kept = Vec::new();
                while let Some(case) = seq.next_element::<Case>()? {
                    if case.failing() && kept.len() < MAX_KEPT {
                        kept.push(case);
                    }
                }
                Ok(Failing(kept))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Failing, E> {
                Ok(Failing::default())
            }
        }
        deserializer.deserialize_any(Cases)
    }
}

fn shorten(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_owned(),
    }
}

/// The start of one failure's output, headed by the test it belongs to.
fn output_block(suite: &str, case: &Case) -> Option<String> {
    let output = case.output()?;
    let lines: Vec<&str> = output.lines().collect();
    let mut block = shorten(
        &lines[..lines.len().min(OUTPUT_LINES)].join("\n"),
        OUTPUT_CHARS,
    );
    if lines.len() > OUTPUT_LINES {
        block.push_str(&format!("\n… {} more lines", lines.len() - OUTPUT_LINES));
    }
    let class = case
        .classname
        .as_deref()
        .map(|c| format!("{c} › "))
        .unwrap_or_default();
    Some(format!("── {suite} › {class}{} ──\n{block}", case.name))
}

/// `pipeline.test_report`: counts, suites, and as many failures as fit half the budget.
pub async fn test_report(
    context: &Context,
    params: &test_report::Params,
) -> Result<test_report::Output, ActionError> {
    let report: Report = context.send(params.request()).await?.json()?;
    Ok(summarise(report, params, context.result_budget() / 2))
}

fn summarise(report: Report, params: &test_report::Params, room: usize) -> test_report::Output {
    let wanted = params.suite.as_deref();
    let mut suites = Vec::new();
    let mut failures = Vec::new();
    let mut outputs: Vec<String> = Vec::new();
    let mut failures_total = 0;
    let mut used = 0;
    let mut left = 0;
    for suite in &report.test_suites {
        suites.push(TestSuiteSummary {
            name: suite.name.clone(),
            total_count: suite.total_count,
            success_count: Some(suite.success_count),
            failed_count: Some(suite.failed_count),
            skipped_count: Some(suite.skipped_count),
            error_count: Some(suite.error_count),
            total_time: Some(suite.total_time),
            build_ids: Vec::new(),
            suite_error: suite.suite_error.clone(),
        });
        if wanted.is_some_and(|w| w != suite.name) {
            continue;
        }
        failures_total += suite.failed_count + suite.error_count;
        for case in &suite.test_cases.0 {
            let failure = TestFailure {
                suite: suite.name.clone(),
                status: case.status.clone(),
                name: case.name.clone(),
                classname: case.classname.clone(),
                file: case.file.clone(),
                execution_time: case.execution_time,
                message: case.message(),
                recent_failures: case.recent_failures.as_ref().and_then(|r| r.count),
            };
            let block = output_block(&suite.name, case);
            // The table row is sent twice (Markdown and structure), the output once.
            let cost = 2 * serde_json::to_string(&failure).map_or(0, |t| t.len())
                + block.as_ref().map_or(0, String::len);
            if !failures.is_empty() && used + cost > room {
                left += 1;
                continue;
            }
            used += cost;
            failures.push(failure);
            outputs.extend(block);
        }
    }
    let shown = failures.len() as i64;
    // GitLab counts failures it did not send (past MAX_KEPT) too.
    let unseen = (failures_total - shown).max(left as i64);
    let left_out = (unseen > 0).then(|| {
        let how = if wanted.is_none() && report.test_suites.len() > 1 {
            "; pass `suite` to see one suite's failures"
        } else {
            ""
        };
        format!("{unseen} more failed tests, to keep this result small{how}.")
    });
    test_report::Output {
        pipeline_id: params.pipeline_id,
        total_count: report.total_count,
        success_count: report.success_count,
        failed_count: report.failed_count,
        skipped_count: report.skipped_count,
        error_count: report.error_count,
        total_time: Some(report.total_time),
        suites,
        failures_total,
        failures_shown: shown,
        left_out,
        failures,
        output: (!outputs.is_empty()).then(|| outputs.join("\n\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gitlab::PathOrId;
    use serde_json::json;

    fn params(suite: Option<&str>) -> test_report::Params {
        test_report::Params {
            project_id: PathOrId::Id(1),
            pipeline_id: 7,
            suite: suite.map(str::to_owned),
        }
    }

    fn report(failing: usize, passing: usize) -> Report {
        let mut cases: Vec<Value> = (0..passing)
            .map(|i| json!({"status": "success", "name": format!("passes_{i}"), "system_output": null}))
            .collect();
        cases.extend((0..failing).map(|i| {
            json!({
                "status": "failed",
                "name": format!("fails_{i}"),
                "classname": "suite_a",
                "system_output": {
                    "message": format!("assertion failed: case {i}\nleft: 1\nright: 2\nmore"),
                    "__content__": "line\n".repeat(100),
                },
            })
        }));
        serde_json::from_value(json!({
            "total_time": 1.5,
            "total_count": failing + passing,
            "success_count": passing,
            "failed_count": failing,
            "test_suites": [
                {"name": "unit", "total_count": failing + passing, "success_count": passing, "failed_count": failing, "test_cases": cases},
                {"name": "integration", "total_count": 1, "success_count": 1, "test_cases": [{"status": "success", "name": "ok"}]},
            ],
        }))
        .unwrap()
    }

    #[test]
    fn passing_tests_are_counted_not_kept() {
        let out = summarise(report(2, 3000), &params(None), 100_000);
        assert_eq!(out.total_count, 3002);
        assert_eq!(out.failures_shown, 2);
        assert_eq!(out.failures[0].name, "fails_0");
        assert_eq!(
            out.failures[0].message.as_deref(),
            Some("assertion failed: case 0 left: 1 right: 2")
        );
        assert!(out.left_out.is_none());
        let output = out.output.unwrap();
        assert!(output.starts_with("── unit › suite_a › fails_0 ──\nline"));
        assert!(output.contains("… 75 more lines"));
    }

    #[test]
    fn failures_past_the_budget_are_left_out_and_said_so() {
        let out = summarise(report(200, 10), &params(None), 20_000);
        assert!(out.failures_shown > 0 && out.failures_shown < 200);
        assert_eq!(out.failures_total, 200);
        let left = out.left_out.unwrap();
        assert!(
            left.starts_with(&format!("{} more failed tests", 200 - out.failures_shown)),
            "{left}"
        );
        assert!(left.contains("pass `suite`"), "{left}");
    }

    #[test]
    fn a_suite_narrows_the_failures_but_not_the_counts() {
        let out = summarise(report(3, 1), &params(Some("integration")), 100_000);
        assert_eq!(out.failures_total, 0);
        assert!(out.failures.is_empty());
        assert_eq!(out.suites.len(), 2);
    }

    #[test]
    fn a_plain_text_output_gives_the_message_and_a_stack_trace_the_output() {
        let case: Case = serde_json::from_value(json!({
            "status": "error",
            "name": "boom",
            "system_output": "RuntimeError: boom\n  at x",
            "stack_trace": "trace line 1\ntrace line 2",
        }))
        .unwrap();
        assert_eq!(case.message().as_deref(), Some("RuntimeError: boom at x"));
        assert_eq!(case.output(), Some("trace line 1\ntrace line 2"));
    }
}
