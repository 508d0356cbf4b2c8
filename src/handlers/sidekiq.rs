//! GitLab answers Sidekiq's queue metrics as an object keyed by queue name (`{"queues":
//! {"default": {"backlog": 0, "latency": 0}}}`), which a manifest field cannot type. This
//! handler turns it into a list of queues, each with its `name`, before the answer is
//! read, so a queue's backlog and latency are a table row rather than left out.

use serde_json::{Map, Value};

use crate::call::{ActionError, Context};
use crate::catalog::{Action, Plan};

/// `sidekiq.queue_metrics`, `sidekiq.compound_metrics`: the queues as a list.
pub async fn sidekiq_queues(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    super::send_rewritten(context, action, plan, queues_as_list).await
}

/// `queues` keyed by name becomes a list of queues with their `name`, sorted by name.
fn queues_as_list(body: &mut Value) {
    let Some(Value::Object(queues)) = body.get_mut("queues") else {
        return;
    };
    let listed: Vec<Value> = std::mem::take(queues)
        .into_iter()
        .map(|(name, metrics)| {
            let mut queue = Map::new();
            queue.insert("name".to_owned(), Value::String(name));
            if let Value::Object(metrics) = metrics {
                queue.extend(metrics);
            }
            Value::Object(queue)
        })
        .collect();
    body["queues"] = Value::Array(listed);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::queues_as_list;

    #[test]
    fn queues_keyed_by_name_become_a_list() {
        let mut body = json!({"queues": {
            "mailers": {"backlog": 3, "latency": 12},
            "default": {"backlog": 0, "latency": 0},
        }, "jobs": {"processed": 5}});
        queues_as_list(&mut body);
        assert_eq!(
            body,
            json!({"queues": [
                {"name": "default", "backlog": 0, "latency": 0},
                {"name": "mailers", "backlog": 3, "latency": 12},
            ], "jobs": {"processed": 5}})
        );
    }

    #[test]
    fn an_answer_without_queues_is_left_alone() {
        let mut body = json!({"processes": []});
        queues_as_list(&mut body);
        assert_eq!(body, json!({"processes": []}));
    }
}
