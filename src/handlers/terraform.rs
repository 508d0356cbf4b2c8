//! Reading a Terraform state: GitLab answers the state file itself, whose resources'
//! attributes and outputs' values hold secrets (passwords, keys, connection strings). What
//! a person asks of it (what it manages, at which serial, with which Terraform) is read
//! out; the values never are, and resources are listed up to `limit`.

use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::terraform_state::{get, version_get};
use crate::catalog::generated::types::{TerraformOutput, TerraformResource, TerraformStateSummary};
use crate::gitlab::{ErrorKind, GitlabError, Request};

/// `terraform_state.get`: the latest version.
pub async fn terraform_state_read(
    context: &Context,
    params: &get::Params,
) -> Result<get::Output, ActionError> {
    summary(context, params.request(), &params.state_name, params.limit).await
}

/// `terraform_state.version_get`: one version by serial.
pub async fn terraform_state_version_read(
    context: &Context,
    params: &version_get::Params,
) -> Result<version_get::Output, ActionError> {
    summary(context, params.request(), &params.state_name, params.limit).await
}

async fn summary(
    context: &Context,
    request: Request,
    state_name: &str,
    limit: i64,
) -> Result<TerraformStateSummary, ActionError> {
    let response = context.send(request).await?;
    // GitLab answers 204 for a state created by a lock but never written.
    if response.body.is_empty() {
        return Err(GitlabError::new(
            ErrorKind::BadResponse,
            format!(
                "Terraform state {state_name} has no content yet (it was locked but never written)"
            ),
        )
        .into());
    }
    let state: Value = serde_json::from_slice(&response.body).map_err(|error| {
        GitlabError::new(
            ErrorKind::BadResponse,
            format!("the state is not JSON ({error})"),
        )
    })?;
    Ok(summarize(&state, state_name, response.body.len(), limit))
}

/// The state's facts, its outputs by name and its first `limit` resources, without values.
fn summarize(state: &Value, state_name: &str, size: usize, limit: i64) -> TerraformStateSummary {
    let text = |field: &str| state[field].as_str().map(str::to_owned);
    let outputs: Vec<TerraformOutput> = state["outputs"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, output)| TerraformOutput {
            name: name.clone(),
            r#type: output["type"].as_str().map(str::to_owned),
            sensitive: output["sensitive"].as_bool(),
        })
        .collect();
    let all: &[Value] = state["resources"].as_array().map_or(&[], Vec::as_slice);
    let resources: Vec<TerraformResource> = all
        .iter()
        .take(limit.max(1) as usize)
        .map(resource)
        .collect();
    TerraformStateSummary {
        state_name: state_name.to_owned(),
        serial: state["serial"].as_i64(),
        lineage: text("lineage"),
        terraform_version: text("terraform_version"),
        size: size as i64,
        outputs,
        total_resources: all.len() as i64,
        shown_resources: resources.len() as i64,
        truncated: resources.len() < all.len(),
        resources,
    }
}

/// One resource: its address as Terraform writes it (`module.db.aws_db_instance.main`,
/// `data.` for a data source) and its provider without the `provider[...]` wrapping.
fn resource(resource: &Value) -> TerraformResource {
    let field = |name: &str| resource[name].as_str().unwrap_or_default();
    let mode = field("mode");
    let mut address = String::new();
    if !field("module").is_empty() {
        address.push_str(field("module"));
        address.push('.');
    }
    if mode == "data" {
        address.push_str("data.");
    }
    address.push_str(field("type"));
    address.push('.');
    address.push_str(field("name"));
    let provider = field("provider");
    let provider = provider
        .split_once("[\"")
        .and_then(|(_, rest)| rest.split_once("\"]"))
        .map_or(provider, |(inner, _)| inner);
    TerraformResource {
        address,
        mode: (!mode.is_empty()).then(|| mode.to_owned()),
        r#type: resource["type"].as_str().map(str::to_owned),
        provider: (!provider.is_empty()).then(|| provider.to_owned()),
        instances: resource["instances"].as_array().map_or(0, Vec::len) as i64,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_summary_names_resources_and_outputs_but_never_their_values() {
        let state = json!({
            "version": 4, "terraform_version": "1.9.5", "serial": 14, "lineage": "3b1e",
            "outputs": {"db_password": {"value": "hunter2", "type": "string", "sensitive": true}},
            "resources": [
                {"module": "module.db", "mode": "managed", "type": "aws_db_instance", "name": "main",
                 "provider": "module.db.provider[\"registry.terraform.io/hashicorp/aws\"]",
                 "instances": [{"attributes": {"password": "hunter2"}}]},
                {"mode": "data", "type": "aws_ami", "name": "ubuntu",
                 "provider": "provider[\"registry.terraform.io/hashicorp/aws\"]", "instances": []}
            ]
        });
        let summary = summarize(&state, "production", 900, 1);
        assert_eq!(summary.total_resources, 2);
        assert_eq!(summary.shown_resources, 1);
        assert!(summary.truncated);
        let first = &summary.resources[0];
        assert_eq!(first.address, "module.db.aws_db_instance.main");
        assert_eq!(
            first.provider.as_deref(),
            Some("registry.terraform.io/hashicorp/aws")
        );
        assert_eq!(first.instances, 1);
        assert_eq!(summary.outputs[0].name, "db_password");
        let shown = serde_json::to_string(&summary).unwrap();
        assert!(!shown.contains("hunter2"), "{shown}");
        let data = resource(&state["resources"][1]);
        assert_eq!(data.address, "data.aws_ami.ubuntu");
    }
}
