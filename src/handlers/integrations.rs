//! Integrations (`integration.get`, `.update`, `.group_get`, `.group_update`): GitLab
//! reads an integration's settings at the top of the body, each integration with its own
//! field names (52 of them), so the manifest takes them as objects (`settings`, and the
//! secret `credentials`) that are spread there before sending. GitLab answers with the
//! settings as an object of any values (`properties`), which becomes a list of name and
//! text value; the events the integration sends are named from its `*_events` flags.

use serde_json::{Map, Value, json};

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan};
use crate::gitlab::Response;

/// The body objects whose entries GitLab reads as the integration's own fields.
const SPREAD: [&str; 2] = ["settings", "credentials"];

/// Sends the request with the settings spread into the body and reads the integration.
pub async fn integration_settings(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let request = SPREAD.iter().fold(plan.request.clone(), |request, name| {
        request.spread_body(name)
    });
    let response = context.send(request).await?;
    let readable = Response {
        body: serde_json::to_vec(&readable(response.value()?)).unwrap_or_default(),
        ..response
    };
    Ok(decode(action, &plan.args, &readable)?)
}

/// GitLab's integration with `properties` as `settings` (name and text value, sorted by
/// name) and `events` naming each `<event>_events` flag that is on.
fn readable(integration: Value) -> Value {
    let Value::Object(mut fields) = integration else {
        return integration;
    };
    let events: Vec<String> = fields
        .iter()
        .filter(|(_, on)| on.as_bool() == Some(true))
        .filter_map(|(name, _)| name.strip_suffix("_events"))
        .map(|event| event.replace('_', " "))
        .collect();
    fields.insert("events".into(), json!(events));
    if let Some(Value::Object(properties)) = fields.remove("properties") {
        fields.insert("settings".into(), settings(properties));
    }
    Value::Object(fields)
}

/// Each property as `{name, value}`, the value as text: a list joined with commas; an
/// empty one left out.
fn settings(properties: Map<String, Value>) -> Value {
    let items = properties
        .into_iter()
        .filter_map(|(name, value)| {
            if value.is_null() {
                return None;
            }
            let text = super::value_text(&value);
            (!text.is_empty()).then(|| json!({"name": name, "value": text}))
        })
        .collect();
    Value::Array(items)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::readable;

    #[test]
    fn properties_become_named_text_settings_and_flags_name_the_events() {
        let integration = json!({
            "slug": "slack", "title": "Slack notifications", "active": true,
            "push_events": false, "pipeline_events": true, "merge_requests_events": true,
            "comment_on_event_enabled": true,
            "properties": {"channel": "#deploys", "notify_only_broken_pipelines": true,
                           "labels_to_be_notified": "", "project_keys": ["API", "WEB"],
                           "priority": 0}
        });
        let shaped = readable(integration);
        assert_eq!(shaped["events"], json!(["merge requests", "pipeline"]));
        assert_eq!(
            shaped["settings"],
            json!([
                {"name": "channel", "value": "#deploys"},
                {"name": "notify_only_broken_pipelines", "value": "true"},
                {"name": "priority", "value": "0"},
                {"name": "project_keys", "value": "API, WEB"},
            ])
        );
        assert!(shaped.get("properties").is_none());
    }
}
