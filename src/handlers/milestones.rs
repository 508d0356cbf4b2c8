//! A milestone named as a person names it: GitLab's milestone paths want the global id
//! (`/projects/1/milestones/3012`), while people say `%v1.4` or "milestone 3" (the number
//! in its URL, the IID). This handler looks the milestone up in the project's or group's
//! milestones, then sends the action's own request with the id in its place, so one
//! function serves every milestone action whose path names one. Issues and merge requests
//! take a milestone the same way (`milestone`), sent as GitLab's `milestone_id`.

use serde_json::Value;

use crate::call::{ActionError, Context, decode};
use crate::catalog::{Action, Plan, arg_text};
use crate::gitlab::{Method, Request};

/// The path segment whose following parameter is the milestone.
const MILESTONES: &str = "milestones";

/// What a person wrote, as GitLab can be asked for it.
#[derive(Debug, PartialEq, Eq)]
enum Reference {
    /// A number: the milestone's IID first, then a milestone titled with those digits.
    Number(String),
    Title(String),
}

/// `%v1.4`, `%"Sprint 12"`, `v1.4`, `3` or `#3`: the reference without its sigils.
fn parse(text: &str) -> Reference {
    let text = text.trim();
    let text = text.strip_prefix('%').unwrap_or(text);
    let text = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    let number = text.strip_prefix('#').unwrap_or(text);
    if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
        Reference::Number(number.to_owned())
    } else {
        Reference::Title(text.to_owned())
    }
}

/// The id of the first milestone `request` lists, if any.
async fn first_id(context: &Context, request: Request) -> Result<Option<i64>, ActionError> {
    let items = context.send(request).await?.list()?;
    Ok(items
        .first()
        .and_then(|m| m.get("id"))
        .and_then(Value::as_i64))
}

/// The id of the milestone `written` names among those `collection` lists: by its number
/// (IID) first, then by its title.
async fn resolve(
    context: &Context,
    collection: Request,
    written: &str,
) -> Result<Option<i64>, ActionError> {
    match parse(written) {
        Reference::Number(number) => {
            match first_id(context, collection.clone().query("iids[]", &number)).await? {
                Some(id) => Ok(Some(id)),
                None => first_id(context, collection.query("title", &number)).await,
            }
        }
        Reference::Title(title) => first_id(context, collection.query("title", &title)).await,
    }
}

/// The not-found answer for `written` in the project or group of `plan`.
fn not_found(plan: &Plan, written: &str) -> ActionError {
    let owner = arg_text(&plan.args, "project_id")
        .or_else(|| arg_text(&plan.args, "group_id"))
        .unwrap_or_default();
    ActionError::NotFound {
        kind: "Milestone",
        what: format!(
            "milestone `{written}` in {owner} (looked up by title and by its number; \
             `milestone.list` shows them)"
        ),
    }
}

/// Words that take an issue's or merge request's milestone off.
const NO_MILESTONE: &[&str] = &["none", "0", ""];

/// `issue.create`, `.update`, `merge_request.create`, `.update`: the milestone given as
/// people give it (`milestone`: `v1.4`, `%v1.4`, `4`; `none` takes it off) is looked up
/// and sent as GitLab's `milestone_id`.
pub async fn in_body(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let mut request = plan.request.clone();
    if let Some(written) = plan.args.get("milestone").and_then(Value::as_str) {
        if plan.args.contains_key("milestone_id") {
            return Err(ActionError::InvalidParams(
                "Give the milestone once: `milestone` (its title or number) or `milestone_id` \
                 (its global id), not both."
                    .into(),
            ));
        }
        let id = if NO_MILESTONE.contains(&written.trim().to_lowercase().as_str()) {
            0
        } else {
            project_milestone(context, plan, written).await?
        };
        request = request.body("milestone_id", &id);
    }
    let response = context.send(request).await?;
    Ok(decode(action, &plan.args, &response)?)
}

/// The id of the milestone `written` names for the project of `plan`: a number is the
/// project milestone's IID; a title (or a number no IID has) is looked up among the
/// project's milestones and its groups' (`include_ancestors`, with which GitLab ignores
/// `iids[]`, so the two are asked apart), then in the project's own group for a GitLab
/// that does not read `include_ancestors`.
async fn project_milestone(
    context: &Context,
    plan: &Plan,
    written: &str,
) -> Result<i64, ActionError> {
    let project = arg_text(&plan.args, "project_id").unwrap_or_default();
    let milestones =
        Request::new(Method::Get).at("/projects/{project_id}/milestones", &[&project.as_str()]);
    let title = match parse(written) {
        Reference::Number(number) => {
            let by_iid = milestones.clone().query("iids[]", &number);
            if let Some(id) = first_id(context, by_iid).await? {
                return Ok(id);
            }
            number
        }
        Reference::Title(title) => title,
    };
    let inherited = milestones
        .query("include_ancestors", "true")
        .query("title", &title);
    if let Some(id) = first_id(context, inherited).await? {
        return Ok(id);
    }
    let owner = Request::new(Method::Get).at("/projects/{project_id}", &[&project.as_str()]);
    let owner: Value = context.send(owner).await?.value()?;
    let group = (owner["namespace"]["kind"] == "group")
        .then(|| owner["namespace"]["full_path"].as_str().map(str::to_owned))
        .flatten();
    if let Some(group) = group {
        let in_group = Request::new(Method::Get)
            .at("/groups/{group_id}/milestones", &[&group.as_str()])
            .query("include_ancestors", "true")
            .query("title", &title);
        if let Some(id) = first_id(context, in_group).await? {
            return Ok(id);
        }
    }
    Err(ActionError::InvalidParams(format!(
        "No milestone `{written}` in {project} or its groups (looked up by its number and by \
         its title); `milestone.list` and `milestone.group_list` show them."
    )))
}

/// Resolves the milestone reference of `plan`'s path, then runs the action's request.
pub async fn by_reference(
    context: &Context,
    action: &'static Action,
    plan: &Plan,
) -> Result<Value, ActionError> {
    let (Some(written), Some(collection)) = (
        plan.request.param_after(MILESTONES),
        plan.request.collection_of(MILESTONES),
    ) else {
        return Err(ActionError::InvalidParams(
            "this action's path names no milestone".into(),
        ));
    };
    let written = written.to_owned();
    let Some(id) = resolve(context, collection, &written).await? else {
        return Err(not_found(plan, &written));
    };
    let request = plan
        .request
        .clone()
        .with_param_after(MILESTONES, id.to_string());
    let response = context.send(request).await?;
    Ok(decode(action, &plan.args, &response)?)
}

#[cfg(test)]
mod tests {
    use super::{Reference, parse};

    #[test]
    fn a_reference_is_a_number_or_a_title_without_its_sigils() {
        assert_eq!(parse("3"), Reference::Number("3".into()));
        assert_eq!(parse("%3"), Reference::Number("3".into()));
        assert_eq!(parse("#12"), Reference::Number("12".into()));
        assert_eq!(parse("%v1.4"), Reference::Title("v1.4".into()));
        assert_eq!(
            parse("%\"Sprint 12\""),
            Reference::Title("Sprint 12".into())
        );
        assert_eq!(parse(" v1.4 "), Reference::Title("v1.4".into()));
    }
}
