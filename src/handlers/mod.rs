//! Hand-written runners for the actions whose logic YAML cannot say.
//!
//! Each function is named by an action's `handler:` key and called by that action's
//! generated `execute`; it receives the typed params and returns the typed output, so the
//! generated formatter and the dispatcher finish the result as for any other action. Keep
//! this list short and visible:
//!
//! | handler | action | why |
//! |---|---|---|
//! | `file_window` | `repository.file_get` | default ref lookup, base64 decoding, line windows, binary detection |
//! | `file_raw` | `repository.file_raw` | only the bytes shown are fetched (`Range`), binary detection |
//! | `job_log_tail` | `job.log` | the failing part and the tail of a streamed log (`log_focus`), or a window; ANSI and section markers removed |
//! | `merge_request_diffs` | `merge_request.diffs` | every diff page, one patch under a line budget |
//! | `compare` | `repository.compare` | the same patch budget over a comparison |
//! | `merge_request_version` | `merge_request.version_get` | the same patch budget over one diff version |
//! | `merge_request_raw_diffs` | `merge_request.raw_diffs` | a plain-text body (not JSON) streamed: the first lines kept, the rest only counted |
//! | `test_report` | `pipeline.test_report` | only failing cases kept while reading (reports are megabytes), failures within half the result budget, what was left out said |
//! | `artifacts_list`, `artifacts_download_by_ref` | `job.artifacts_list`, `job.artifacts_download_by_ref` | the zip's central directory from the archive's end (`Range`), never the whole archive (a ref's download too: its size and files, not its bytes) |
//! | `artifact_file`, `artifact_file_by_ref` | `job.artifact_file`, `job.artifact_file_by_ref` | `artifact_path` keeps its slashes (GitLab's `*artifact_path`); a streamed line window, binary detection |
//! | `milestone_by_reference` | `milestone.get`, `.update`, `.delete`, `.issues`, `.merge_requests`, `.promote`, `.burndown_events`, `.group_get`, `.group_update`, `.group_delete`, `.group_issues`, `.group_merge_requests`, `.group_burndown_events` | GitLab's path wants the milestone's global id; people give its title or its number (IID), so it is looked up first |
//! | `milestone_in_body` | `issue.create`, `.update`, `merge_request.create`, `.update` | the same lookup for `milestone`, sent as GitLab's `milestone_id` (`none` takes it off) |
//! | `diff_position` | `merge_request.discussion_create`, `.draft_note_create` | a line comment is asked for as file + line + side; GitLab wants a `position` from the diff refs with old and new line numbers, and a clear refusal when the line is not in the diff |
//! | `file_blame` | `repository.file_blame` | default ref lookup, the file-read line window cut across GitLab's blame ranges |
//! | `commit_diff` | `repository.commit_diff` | every diff page of a commit, one patch under the line budget |
//! | `wiki_window`, `group_wiki_window` | `wiki.get`, `wiki.group_get` | the file-read line window over a wiki page's content |
//! | `snippet_raw`, `project_snippet_raw`, `snippet_file_raw`, `project_snippet_file_raw` | `snippet.raw`, `.project_raw`, `.file_raw`, `.project_file_raw` | the byte budget of `file_raw` over a snippet's content |
//! | `wiki_window` | `wiki.get` | the file-read line window over a wiki page's content |
//! | `blob_raw` | `repository.blob_raw` | the byte budget of `file_raw` over a Git blob found by its SHA |
//! | `snippet_raw`, `project_snippet_raw` | `snippet.raw`, `snippet.project_raw` | the byte budget of `file_raw` over a snippet's content |
//! | `runner_by_owner_id` | `runner.create` | `POST /user/runners` takes numeric ids only, so a project or group path is looked up first |
//! | `ci_variable_values` | `ci_variable.list`, `.get`, `.create`, `.update`, `.group_*`, `.instance_list` | values are secrets: kept only when asked for (`include_values`) and neither masked nor hidden; a withheld one says why |
//! | `secure_file_download` | `secure_file.download` | the byte budget of `file_raw` over a secure file; a keystore or profile is reported by size |
//! | `upload_download`, `group_upload_download`, `upload_download_by_secret`, `group_upload_download_by_secret` | `upload.project_download`, `.group_download`, `.project_download_by_secret`, `.group_download_by_secret` | the byte budget of `file_raw` over an uploaded file; an image is reported by size |
//! | `package_file_download` | `package.file_download` | the byte budget of `file_raw` over a package file; an archive or binary is reported by size |
//! | `project_avatar_download`, `group_avatar_download` | `project.avatar_download`, `group.avatar_download` | the byte budget of `file_raw` over an avatar image; an image is reported by size |
//! | `project_snapshot_download` | `project.snapshot` | the byte budget of `file_raw` over a repository's tar; reported by size |
//! | `vulnerability_export_download` | `security.export_download` | the byte budget of `file_raw` over a vulnerability export's CSV |
//! | `repository_archive` | `repository.archive` | the byte budget of `file_raw` over a repository archive, which is binary: its size, never its bytes |
//! | `attestation_download` | `attestation.download` | the byte budget of `file_raw` over an attestation's Sigstore bundle |
//! | `release_asset_download` | `release.asset_download` | `direct_asset_path` keeps its slashes (GitLab's `*direct_asset_path`); the byte budget of `file_raw` over the asset, a binary reported by size |
//! | `feature_flag_rollout` | `feature_flag.create`, `.update` | GitLab's `strategies` nest `parameters` and `scopes` objects the manifest's `[object]` cannot say; one strategy is given as `strategy`, `percentage`, `user_ids`, `user_list_id`, `environments`, and an update replaces the flag's strategies (read first, sent back with `_destroy`) |
//! | `upload_file` | `wiki.attachment_upload`, `.group_attachment_upload`, `upload.project_create`, `secure_file.create`, `alert.metric_image_upload`, `issue.metric_image_upload` | GitLab wants the file as `multipart/form-data`; the inline content (text or base64) is decoded, capped and sent as the form's file, never read from a local path |
//! | `project_export_download`, `group_export_download` | `import.project_export_download`, `.group_export_download` | the byte budget of `file_raw` over an export archive: a `.tar.gz` is reported by size, never read whole |
//! | `project_export_download`, `group_export_download`, `project_relations_export_download`, `group_relations_export_download` | `import.project_export_download`, `.group_export_download`, `.project_relations_export_download`, `.group_relations_export_download` | the byte budget of `file_raw` over an export archive or an exported relation: a `.tar.gz` is reported by size, never read whole |
//! | `placeholder_csv` | `import.placeholder_list` | the byte budget of `file_raw` over a group's placeholder reassignments CSV |
//! | `feature_flag_rollout` | `feature_flag.create`, `.update` | GitLab's `strategies` nest `parameters` and `scopes` objects the manifest's `[object]` cannot say; one strategy is given as `strategy`, `percentage`, `user_ids`, `user_list_id`, `environments`, and an update replaces the flag's strategies (read first, sent back with `_destroy`) |
//! | `upload_file` | `wiki.attachment_upload`, `.group_attachment_upload`, `upload.project_create`, `secure_file.create`, `import.project_import`, `.group_import`, `.project_relation_import`, `.placeholder_reassign` | GitLab wants the file as `multipart/form-data`; the inline content (text or base64) is decoded, capped and sent as the form's file, never read from a local path |
//! | `upload_file` | `wiki.attachment_upload`, `upload.project_create`, `secure_file.create` | GitLab wants the file as `multipart/form-data`; the inline content (text or base64) is decoded, capped and sent as the form's file, never read from a local path |
//! | `cancel_auto_merge` | `merge_request.cancel_auto_merge` | GitLab answers 201 both ways, a cancellation as `{"status": "success"}` (not the merge request) and nothing to cancel as an error inside the body; the refusal becomes one and the merge request is read back |
//! | `invitations_sent` | `member.invitation_create`, `.group_invitation_create` | GitLab answers 201 even when some invitees fail, their reasons in an object keyed by address; it becomes who was invited and a list of failures |
//! | `releases_with_project` | `release.group_list` | a group's releases name their project only inside `_links.self`; its path is read from there |
//! | `tag_cleanup` | `container_registry.tags_bulk_delete` | GitLab answers 202 with no body and applies the rule later; the result says in words what the rule deletes and keeps |
//! | `work_item_widgets` | `work_item.list`, `.get`, `epic.list`, `.get` | GraphQL's widgets (description, assignees, labels, dates, hierarchy) merged into the work item as fields |
//! | `work_item_create` | `work_item.create` | the work item type's global ID (and the parent's) looked up by name and IID first |
//! | `work_item_update` | `work_item.update` | the global IDs GitLab wants looked up first: the work item's from its IID, labels' from their titles, assignees' from their usernames |
//! | `integration_settings` | `integration.get`, `.update`, `.group_get`, `.group_update` | each of GitLab's 52 integrations has its own fields, read at the top of the body: `settings` and the secret `credentials` objects are spread there; GitLab's `properties` (an object of any values) become named text settings, and the `*_events` flags a list of events |
//! | `pipeline_wait`, `job_wait` | `pipeline.wait_for`, `job.wait_for` | the read again with growing pauses until the status is final or the timeout passes, progress on each read; a pipeline's failed jobs read at the end |
//! | `file_update`, `commit_create` | `repository.file_update`, `repository.commit_create` | a refusal for a stale `last_commit_id` explained with the file's current last commit |
//! | `feature_gates` | `instance.feature_list`, `.feature_set` | a GitLab feature flag's gate value is a boolean, a percentage or a list of actors by its key; each is read as text so a gate says which actors or what percentage |
//! | `clusters_discovered` | `cluster.discover` | GitLab answers a group hierarchy's certificate-based clusters as two objects keyed by group and project path; they become one list, each cluster with its `level` and `full_path` |
//! | `sidekiq_queues` | `sidekiq.queue_metrics`, `.compound_metrics` | GitLab answers the queues as an object keyed by queue name; it becomes a list of queues, each with its name, backlog and latency |

mod artifacts;
mod auto_merge;
mod blobs;
mod changes;
mod clusters;
mod downloads;
mod feature_flags;
mod features;
mod files;
mod integrations;
mod invitations;
mod job_log;
mod log_focus;
mod milestones;
mod positions;
mod registry;
mod releases;
mod runners;
mod secure_files;
mod sidekiq;
mod snippets;
mod terraform;
mod test_report;
mod upload_reads;
mod uploads;
mod variables;
mod waits;
mod wiki;
mod work_items;
mod writes;

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde_json::Value;

use crate::call::{ActionError, Context};
use crate::catalog::{Action, Plan};
use crate::gitlab::prune;

/// A handler's answer: the result's full structure, as the generated output type
/// serialises it.
pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, ActionError>> + Send + 'a>>;

/// A handler as the dispatcher calls it, with the action and the checked plan of the call.
pub type Run = for<'a> fn(&'a Context, &'static Action, &'a Plan) -> HandlerFuture<'a>;

/// The handlers by the name actions give in `handler:`.
/// Typed handlers (one action's `Params` to its `Output`) and plan handlers (any action
/// whose path has the parameter they resolve; they finish with the action's own request).
macro_rules! handlers {
    (
        typed { $($name:ident => $function:path),* $(,)? }
        plan { $($plan_name:ident => $plan_function:path),* $(,)? }
    ) => {
        /// The handler an action names, if this build has it.
        pub fn find(name: &str) -> Option<Run> {
            match name {
                $(stringify!($name) => Some({
                    fn run<'a>(
                        context: &'a Context,
                        _action: &'static Action,
                        plan: &'a Plan,
                    ) -> HandlerFuture<'a> {
                        adapt(context, plan, $function)
                    }
                    run
                }),)*
                $(stringify!($plan_name) => Some({
                    fn run<'a>(
                        context: &'a Context,
                        action: &'static Action,
                        plan: &'a Plan,
                    ) -> HandlerFuture<'a> {
                        Box::pin($plan_function(context, action, plan))
                    }
                    run
                }),)*
                _ => None,
            }
        }

        /// Every handler's name, for the test that each is used by an action.
        pub const NAMES: &[&str] = &[$(stringify!($name),)* $(stringify!($plan_name)),*];
    };
}

handlers! {
    typed {
        file_window => files::file_window,
        file_raw => files::file_raw,
        job_log_tail => job_log::job_log_tail,
        merge_request_diffs => changes::merge_request_diffs,
        compare => changes::compare,
        merge_request_version => changes::merge_request_version,
        merge_request_raw_diffs => changes::merge_request_raw_diffs,
        test_report => test_report::test_report,
        artifacts_list => artifacts::artifacts_list,
        artifacts_download_by_ref => artifacts::artifacts_download_by_ref,
        artifact_file => artifacts::artifact_file,
        artifact_file_by_ref => artifacts::artifact_file_by_ref,
        file_blame => files::file_blame,
        commit_diff => changes::commit_diff,
        file_update => writes::file_update,
        commit_create => writes::commit_create,
        wiki_window => wiki::wiki_window,
        group_wiki_window => wiki::group_wiki_window,
        runner_by_owner_id => runners::runner_by_owner_id,
        snippet_raw => snippets::snippet_raw,
        blob_raw => blobs::blob_raw,
        project_snippet_raw => snippets::project_snippet_raw,
        snippet_file_raw => snippets::snippet_file_raw,
        project_snippet_file_raw => snippets::project_snippet_file_raw,
        tag_cleanup => registry::tag_cleanup,
        secure_file_download => secure_files::secure_file_download,
        upload_download => upload_reads::upload_download,
        group_upload_download => upload_reads::group_upload_download,
        upload_download_by_secret => upload_reads::upload_download_by_secret,
        group_upload_download_by_secret => upload_reads::group_upload_download_by_secret,
        package_file_download => downloads::package_file_download,
        project_avatar_download => downloads::project_avatar_download,
        group_avatar_download => downloads::group_avatar_download,
        project_snapshot_download => downloads::project_snapshot_download,
        vulnerability_export_download => downloads::vulnerability_export_download,
        repository_archive => downloads::repository_archive,
        attestation_download => downloads::attestation_download,
        project_export_download => downloads::project_export_download,
        group_export_download => downloads::group_export_download,
        project_relations_export_download => downloads::project_relations_export_download,
        group_relations_export_download => downloads::group_relations_export_download,
        placeholder_csv => downloads::placeholder_csv,
        pipeline_wait => waits::pipeline_wait,
        job_wait => waits::job_wait,
        terraform_state_read => terraform::terraform_state_read,
        terraform_state_version_read => terraform::terraform_state_version_read,
        release_asset_download => releases::release_asset_download,
    }
    plan {
        milestone_by_reference => milestones::by_reference,
        milestone_in_body => milestones::in_body,
        diff_position => positions::with_position,
        ci_variable_values => variables::ci_variable_values,
        upload_file => uploads::upload_file,
        invitations_sent => invitations::invitations_sent,
        cancel_auto_merge => auto_merge::cancel_auto_merge,
        work_item_widgets => work_items::work_item_widgets,
        work_item_create => work_items::work_item_create,
        work_item_update => work_items::work_item_update,
        releases_with_project => releases::releases_with_project,
        integration_settings => integrations::integration_settings,
        feature_flag_rollout => feature_flags::feature_flag_rollout,
        feature_gates => features::feature_gates,
        sidekiq_queues => sidekiq::sidekiq_queues,
        clusters_discovered => clusters::clusters_discovered,
    }
}

/// What a handler adds to the request a safe-mode preview shows: the file an upload
/// would send, which the request does not hold until the handler runs.
pub fn preview(action: &Action, args: &crate::catalog::Args) -> Option<String> {
    match action.handler? {
        "upload_file" => Some(uploads::preview(args)),
        _ => None,
    }
}

/// Runs a typed handler on the plan's typed params and serialises its typed output.
fn adapt<'a, P, O, F, Fut>(context: &'a Context, plan: &'a Plan, handler: F) -> HandlerFuture<'a>
where
    P: Send + Sync + 'static,
    O: Serialize,
    F: FnOnce(&'a Context, &'a P) -> Fut + Send + 'a,
    Fut: Future<Output = Result<O, ActionError>> + Send + 'a,
{
    Box::pin(async move {
        let params = plan.params.downcast_ref::<P>().ok_or_else(|| {
            ActionError::InvalidParams("the handler was given another action's params".into())
        })?;
        let output = handler(context, params).await?;
        let mut value = serde_json::to_value(output).map_err(|error| {
            ActionError::InvalidParams(format!("the result cannot be written: {error}"))
        })?;
        // Results carry no nulls or empty placeholders, from GitLab or from a handler.
        prune(&mut value);
        Ok(value)
    })
}

/// Sends `plan`'s request and decodes the answer as `action`'s result after `rewrite` has
/// changed its JSON body: a shape the manifest cannot type (values of several types, an
/// object keyed by name) made readable first, so it is read rather than left out.
pub(crate) async fn send_rewritten(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
    rewrite: impl FnOnce(&mut Value),
) -> Result<Value, ActionError> {
    let response = context.send(plan.request.clone()).await?;
    let mut body = response.value()?;
    rewrite(&mut body);
    let readable = crate::gitlab::Response {
        status: response.status,
        pagination: response.pagination.clone(),
        body: serde_json::to_vec(&body).unwrap_or_default(),
    };
    Ok(crate::call::decode(action, &plan.args, &readable)?)
}

/// A JSON value as one line of text for a card: a string as it is, a list's items joined
/// with commas (strings unquoted), anything else as JSON.
pub(crate) fn value_text(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::catalog::ACTIONS;

    #[test]
    fn every_named_handler_exists_and_every_handler_is_used() {
        for action in ACTIONS {
            if let Some(name) = action.handler {
                assert!(
                    super::find(name).is_some(),
                    "{}: no handler `{name}`",
                    action.id
                );
            }
        }
        for name in super::NAMES {
            assert!(
                ACTIONS.iter().any(|a| a.handler == Some(name)),
                "handler `{name}` is used by no action"
            );
        }
    }
}
