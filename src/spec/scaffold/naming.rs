//! Where a drafted action goes and what it is called, by the catalog's own conventions.
//!
//! The domain is the one the catalog already uses for the path's first resource
//! (`/projects/{id}/repository/...` is `repository`, `/projects/{id}/hooks` is `webhook`),
//! learnt from the manifest's paths; a verb straight under a project or group
//! (`/projects/{id}/unarchive`) is an action of that domain (`project.unarchive`); a resource
//! the catalog does not know yet is a new domain named by its singular (`badge`). The
//! action is the rest of the path, singular, plus the verb the method and shape imply
//! (`contributor_list`, `note_get`), or a verb segment as it is (`approve`, `unarchive`).

use std::collections::BTreeMap;

/// One action the manifest already declares: its domain, name and path shape.
#[derive(Debug, Clone)]
pub struct Known {
    pub domain: String,
    pub name: String,
    /// `GET`, `POST`, ... as the manifest writes it.
    pub method: String,
    /// Path segments, each placeholder written `{}`.
    pub shape: Vec<String>,
    /// The spec's shapes this action serves (`spec::served_shapes`).
    pub serves: Vec<String>,
}

/// Path segments as `Known::shape` holds them: each parameter written `{}`.
fn shape(segments: &[&str]) -> Vec<String> {
    segments
        .iter()
        .map(|s| {
            if is_param(s) {
                "{}".to_owned()
            } else {
                (*s).to_owned()
            }
        })
        .collect()
}

/// A path segment that is a parameter (`{id}`, `*artifact_path`).
pub fn is_param(segment: &str) -> bool {
    segment.starts_with('{') || segment.starts_with('*')
}

/// `domain` and `action` for `method` on `segments` (the spec's path, split), given the
/// actions the manifest declares.
pub fn suggested_id(method: &str, segments: &[&str], known: &[Known]) -> (String, String) {
    let scoped = segments.len() >= 2
        && matches!(segments[0], "projects" | "groups" | "users")
        && is_param(segments[1]);
    // `/admin/...` is the instance's side of a resource: the resource names the domain
    // (`/admin/batched_background_migrations` is not `ci_variable`'s, though
    // `/admin/ci/variables` is).
    let start = if scoped {
        2
    } else if is_admin(segments) {
        1
    } else {
        0
    };
    let domain_of = |prefix: &[String], exact: bool| -> Option<String> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for action in known {
            let fits = match exact {
                true => action.shape == prefix,
                false => action.shape.starts_with(prefix),
            };
            if fits {
                *counts.entry(action.domain.as_str()).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by_key(|(_, count)| *count)
            .map(|(domain, _)| domain.to_owned())
    };
    let Some(head) = segments.get(start).filter(|s| !is_param(s)) else {
        // `/projects`, `/projects/{id}`, `/user`: the scope itself.
        let domain = segments.first().copied().unwrap_or("gitlab");
        let domain = domain_of(&shape(segments), true).unwrap_or_else(|| singular(domain));
        let ends_in_param = segments.last().is_some_and(|s| is_param(s));
        let plural = segments.first().is_some_and(|s| s.ends_with('s'));
        let name = verb(method, ends_in_param, plural || ends_in_param);
        return unique(domain, name, segments, known);
    };
    let rest = &segments[start + 1..];
    let known_domain = domain_of(&shape(&segments[..=start]), false);
    // A verb straight under the scope (`/projects/{id}/unarchive`) acts on the scope.
    if known_domain.is_none() && scoped && rest.is_empty() && !head.ends_with('s') {
        let domain =
            domain_of(&shape(&segments[..start]), true).unwrap_or_else(|| singular(segments[0]));
        return unique(domain, snake(head), segments, known);
    }
    let domain = known_domain.unwrap_or_else(|| singular(head));
    let ends_in_param = segments.last().is_some_and(|s| is_param(s));
    let mut words: Vec<String> = Vec::new();
    for (index, segment) in rest.iter().enumerate() {
        if is_param(segment) {
            continue;
        }
        let followed_by_param = rest.get(index + 1).is_some_and(|s| is_param(s));
        let last = index + 1 == rest.len();
        if followed_by_param || (last && segment.ends_with('s')) {
            words.push(singular(segment));
        } else {
            words.push(snake(segment));
        }
    }
    // A collection (plural) or an item takes the method's verb; a singular last segment is
    // a verb or a singleton of its own (`approve`, `latest`).
    let collection = match rest.iter().rev().find(|s| !is_param(s)) {
        Some(segment) => ends_in_param || segment.ends_with('s'),
        None => ends_in_param || head.ends_with('s'),
    };
    if collection || words.is_empty() {
        words.push(verb(method, ends_in_param, collection));
    }
    unique(domain, words.join("_"), segments, known)
}

/// Whether the path is an administrators' one (`/admin/...`).
pub fn is_admin(segments: &[&str]) -> bool {
    segments.len() >= 2 && segments[0] == "admin"
}

/// The verb a method implies: on a collection or an item, `list`, `get`, `create`,
/// `update`, `delete`; on a singleton, `get` or `update`.
fn verb(method: &str, ends_in_param: bool, collection: bool) -> String {
    match (method, collection) {
        ("GET", true) if ends_in_param => "get",
        ("GET", true) => "list",
        ("GET", false) => "get",
        ("POST", true) => "create",
        ("DELETE", _) => "delete",
        _ => "update",
    }
    .to_owned()
}

/// The id, made unique: when the domain already has the name for another path (a group's
/// badges beside a project's), the scope goes first (`project_list`). The same name for the
/// same path is the action itself, already declared (`scaffold` says so).
fn unique(domain: String, name: String, segments: &[&str], known: &[Known]) -> (String, String) {
    let shape = shape(segments);
    let taken = known
        .iter()
        .any(|k| k.domain == domain && k.name == name && k.shape != shape);
    if taken && segments.len() >= 2 {
        // The catalog calls the administrators' side of a resource the instance's.
        let scope = match is_admin(segments) {
            true => "instance".to_owned(),
            false => singular(segments[0]),
        };
        return (domain, format!("{scope}_{name}"));
    }
    (domain, name)
}

pub fn snake(segment: &str) -> String {
    segment.replace('-', "_")
}

pub fn singular(collection: &str) -> String {
    let name = snake(collection);
    if let Some(stem) = name.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = name
        .strip_suffix("es")
        .filter(|s| s.ends_with("ss") || s.ends_with('x') || s.ends_with("ch"))
    {
        stem.to_owned()
    } else {
        name.strip_suffix('s').unwrap_or(&name).to_owned()
    }
}

/// The regular past tense, for a card's verb (`unarchive` → `unarchived`, `retry` would be
/// `retryed`): the maintainer checks it.
pub fn past(verb: &str) -> String {
    match verb.strip_suffix('e') {
        Some(_) => format!("{verb}d"),
        None => format!("{verb}ed"),
    }
}

/// The title the catalog would write: the verb and its object in everyday words
/// (`List contributors of a repository`, `Unarchive a project`), never GitLab's summary
/// cut short.
pub fn title(domain: &str, action: &str) -> String {
    let words: Vec<&str> = action.split('_').collect();
    let (verb, object) = words
        .split_last()
        .map_or(("get", &[][..]), |(v, o)| (*v, o));
    let thing = |plural: bool| -> String {
        let noun = if object.is_empty() {
            domain.replace('_', " ")
        } else {
            object.join(" ")
        };
        match plural {
            true => plural_of(&noun),
            false => noun,
        }
    };
    let of = |text: String| -> String {
        if object.is_empty() {
            text
        } else {
            format!("{text} of {}", article(&domain.replace('_', " ")))
        }
    };
    let title = match verb {
        "list" => of(format!("List {}", thing(true))),
        "get" => of(format!("Get {}", article(&thing(false)))),
        "create" => of(format!("Create {}", article(&thing(false)))),
        "update" => of(format!("Update {}", article(&thing(false)))),
        "delete" => of(format!("Delete {}", article(&thing(false)))),
        // A verb of its own acts on the domain's thing: `Unarchive a project`.
        _ => format!(
            "{} {}",
            capitalised(&words.join(" ")),
            article(&domain.replace('_', " "))
        ),
    };
    capitalised(&title)
}

pub fn plural_of(noun: &str) -> String {
    if let Some(stem) = noun
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'o', 'u']))
    {
        format!("{stem}ies")
    } else if noun.ends_with('s') || noun.ends_with('x') || noun.ends_with("ch") {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

fn article(noun: &str) -> String {
    match noun.starts_with(['a', 'e', 'i', 'o', 'u']) {
        true => format!("an {noun}"),
        false => format!("a {noun}"),
    }
}

pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `Badge` for `badge`, `MergeRequest` for `merge_request`.
pub fn camel(snake: &str) -> String {
    snake.split('_').map(capitalised).collect()
}

/// `merge_request` for `MergeRequest`.
pub fn snake_of(camel: &str) -> String {
    let mut out = String::new();
    for (index, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<Known> {
        [
            ("project", "get", "/projects/{}"),
            ("project", "archive", "/projects/{}/archive"),
            (
                "repository",
                "commit_list",
                "/projects/{}/repository/commits",
            ),
            ("webhook", "list", "/projects/{}/hooks"),
            ("merge_request", "list", "/projects/{}/merge_requests"),
            ("badge", "list", "/groups/{}/badges"),
            ("ci_variable", "instance_list", "/admin/ci/variables"),
        ]
        .into_iter()
        .map(|(domain, name, path)| Known {
            domain: domain.into(),
            name: name.into(),
            method: "GET".into(),
            shape: path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            serves: vec![path.to_owned()],
        })
        .collect()
    }

    fn id(method: &str, path: &str) -> String {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let (domain, action) = suggested_id(method, &segments, &known());
        format!("{domain}.{action}")
    }

    #[test]
    fn ids_follow_the_catalog() {
        for (method, path, expected) in [
            ("POST", "/projects/{id}/unarchive", "project.unarchive"),
            (
                "GET",
                "/projects/{id}/repository/contributors",
                "repository.contributor_list",
            ),
            ("GET", "/projects/{id}/hooks/{hook_id}", "webhook.get"),
            ("GET", "/projects/{id}/merge_requests", "merge_request.list"),
            (
                "POST",
                "/projects/{id}/merge_requests",
                "merge_request.create",
            ),
            (
                "GET",
                "/projects/{id}/merge_requests/{merge_request_iid}",
                "merge_request.get",
            ),
            (
                "PUT",
                "/projects/{id}/merge_requests/{merge_request_iid}",
                "merge_request.update",
            ),
            (
                "DELETE",
                "/projects/{id}/merge_requests/{merge_request_iid}",
                "merge_request.delete",
            ),
            (
                "GET",
                "/projects/{id}/merge_requests/{merge_request_iid}/notes",
                "merge_request.note_list",
            ),
            (
                "POST",
                "/projects/{id}/merge_requests/{merge_request_iid}/approve",
                "merge_request.approve",
            ),
            ("GET", "/projects/{id}/pipelines/latest", "pipeline.latest"),
            ("GET", "/projects/{id}/badges", "badge.project_list"),
            ("GET", "/projects/{id}/deploy_keys", "deploy_key.list"),
            ("GET", "/projects/{id}", "project.get"),
            ("GET", "/projects", "project.list"),
            ("GET", "/user", "user.get"),
            (
                "GET",
                "/admin/batched_background_migrations",
                "batched_background_migration.list",
            ),
            (
                "GET",
                "/admin/batched_background_migrations/{id}",
                "batched_background_migration.get",
            ),
        ] {
            assert_eq!(id(method, path), expected, "{method} {path}");
        }
    }

    #[test]
    fn titles_are_the_verb_and_its_object() {
        assert_eq!(title("project", "unarchive"), "Unarchive a project");
        assert_eq!(title("badge", "list"), "List badges");
        assert_eq!(title("badge", "get"), "Get a badge");
        assert_eq!(
            title("repository", "contributor_list"),
            "List contributors of a repository"
        );
        assert_eq!(title("issue", "note_create"), "Create a note of an issue");
        assert_eq!(past("unarchive"), "unarchived");
        assert_eq!(camel("deploy_key"), "DeployKey");
        assert_eq!(snake_of("DeployKey"), "deploy_key");
    }
}
