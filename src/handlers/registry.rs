//! Bulk deletion of image tags answers `202 Accepted` with no body: GitLab applies the
//! rule later, in the background. The result therefore says, in words, what the rule will
//! delete and keep, which the caller cannot read anywhere else; YAML's fixed confirmation
//! message cannot, because the rule's parts are optional.

use crate::call::{ActionError, Context};
use crate::catalog::ActionParams;
use crate::catalog::generated::container_registry::tags_bulk_delete;

/// `container_registry.tags_bulk_delete`: sends the rule and describes it.
pub async fn tag_cleanup(
    context: &Context,
    params: &tags_bulk_delete::Params,
) -> Result<tags_bulk_delete::Output, ActionError> {
    context.send(params.request()).await?;
    Ok(tags_bulk_delete::Output {
        repository_id: params.repository_id,
        summary: summary(
            &params.name_regex_delete,
            params.name_regex_keep.as_deref(),
            params.keep_n,
            params.older_than.as_deref(),
        ),
        name_regex_delete: params.name_regex_delete.clone(),
        name_regex_keep: params.name_regex_keep.clone(),
        keep_n: params.keep_n,
        older_than: params.older_than.clone(),
    })
}

/// The rule in one sentence: what goes, then what stays.
fn summary(
    delete: &str,
    keep: Option<&str>,
    keep_n: Option<i64>,
    older_than: Option<&str>,
) -> String {
    // The patterns themselves are rows of their own, shown as code; here they are named.
    let mut text = if delete == ".*" {
        "GitLab is deleting, in the background, every tag".to_owned()
    } else {
        "GitLab is deleting, in the background, every tag matching the delete pattern".to_owned()
    };
    if let Some(age) = older_than {
        text.push_str(&format!(" older than {age}"));
    }
    let mut kept = Vec::new();
    if let Some(n) = keep_n {
        kept.push(if n == 1 {
            "the newest one".to_owned()
        } else {
            format!("the {n} newest")
        });
    }
    if keep.is_some() {
        kept.push("tags matching the keep pattern".to_owned());
    }
    if !kept.is_empty() {
        text.push_str(&format!(", except {}", kept.join(" and ")));
    }
    text.push_str(". Deleted tags cannot be restored.");
    text
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn the_summary_names_every_part_of_the_rule() {
        assert_eq!(
            summary(".*", None, None, None),
            "GitLab is deleting, in the background, every tag. Deleted tags cannot be restored."
        );
        assert_eq!(
            summary("^feature-.*", Some("^v.*"), Some(5), Some("7d")),
            "GitLab is deleting, in the background, every tag matching the delete pattern older \
             than 7d, except the 5 newest and tags matching the keep pattern. Deleted tags cannot \
             be restored."
        );
        assert_eq!(
            summary(".*", None, Some(1), None),
            "GitLab is deleting, in the background, every tag, except the newest one. Deleted \
             tags cannot be restored."
        );
    }
}
