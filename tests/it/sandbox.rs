//! The sandbox's behaviour, declared in `src/sandbox/seed/behaviour/`: sound data, few
//! hand-written routes, and GitLab's refusals for state changes, sent over real HTTP.

use gitlab_mcp::catalog::ACTIONS;
use gitlab_mcp::sandbox::{self, Sandbox, TOKEN};
use serde_json::{Value, json};

use crate::support;

/// The issue's goal: at most 15% of actions need hand-written sandbox Rust.
const MAX_HAND_WRITTEN_SHARE: f64 = 0.15;

#[test]
fn behaviour_data_is_sound() {
    let problems = sandbox::data_problems();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn few_actions_need_hand_written_routes() {
    let hand_written = sandbox::hand_written();
    let share = hand_written.len() as f64 / ACTIONS.len() as f64;
    println!(
        "hand-written sandbox routes: {} of {} actions ({:.1}%)",
        hand_written.len(),
        ACTIONS.len(),
        share * 100.0
    );
    for (action, route, reason) in &hand_written {
        println!("  {action} → {route}: {reason}");
        assert!(!reason.is_empty(), "{action}: the route `{route}` says why");
    }
    assert!(share <= MAX_HAND_WRITTEN_SHARE, "{share:.3} of actions");
}

struct Api {
    sandbox: Sandbox,
    http: reqwest::Client,
}

impl Api {
    async fn start() -> Self {
        gitlab_mcp::tls::install_crypto_provider();
        Self {
            sandbox: Sandbox::start_local().await.expect("the sandbox starts"),
            http: reqwest::Client::new(),
        }
    }

    async fn send(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let url = format!("{}/api/v4/{path}", self.sandbox.url());
        let request = match method {
            "GET" => self.http.get(&url),
            "POST" => self.http.post(&url),
            "PUT" => self.http.put(&url),
            _ => self.http.delete(&url),
        };
        let response = request
            .header("PRIVATE-TOKEN", TOKEN)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }
}

const API: &str = "projects/acme%2Fplatform%2Fapi";
const WEB: &str = "projects/acme%2Fplatform%2Fweb";

#[tokio::test]
async fn merging_needs_a_mergeable_merge_request() {
    let api = Api::start().await;
    // !42 is not approved (0 of 2) and its pipeline is running.
    let (status, body) = api
        .send("PUT", &format!("{API}/merge_requests/42/merge"), json!({}))
        .await;
    assert_eq!(
        (status, body),
        (405, json!({"message": "405 Method Not Allowed"}))
    );
    // Merged, draft: 405.
    for iid in [41, 39] {
        let (status, _) = api
            .send(
                "PUT",
                &format!("{API}/merge_requests/{iid}/merge"),
                json!({}),
            )
            .await;
        assert_eq!(status, 405, "!{iid}");
    }
    // A moved head: 409, and nothing changes.
    let (status, body) = api
        .send(
            "PUT",
            &format!("{API}/merge_requests/44/merge"),
            json!({"sha": "0000000"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    // Conflicts, once approved: 406.
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/merge_requests/23/approve"),
            json!({}),
        )
        .await;
    assert_eq!(status, 201);
    let (status, body) = api
        .send("PUT", &format!("{API}/merge_requests/23/merge"), json!({}))
        .await;
    assert_eq!(
        (status, body),
        (406, json!({"message": "Branch cannot be merged"}))
    );
    // acme/platform/web demands a successful pipeline: approved !2 with a failed one is 405.
    api.send(
        "POST",
        &format!("{WEB}/merge_requests/2/approve"),
        json!({}),
    )
    .await;
    let (status, _) = api
        .send("PUT", &format!("{WEB}/merge_requests/2/merge"), json!({}))
        .await;
    assert_eq!(status, 405);
    // A mergeable one merges, and can then not merge again.
    let (status, body) = api
        .send(
            "PUT",
            &format!("{API}/merge_requests/44/merge"),
            json!({"should_remove_source_branch": true}),
        )
        .await;
    assert_eq!(
        (status, body["state"].clone()),
        (200, json!("merged")),
        "{body}"
    );
    let (status, _) = api
        .send(
            "GET",
            &format!("{API}/repository/branches/chore%2Fdeps-bump"),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "the source branch was removed");
    let (status, _) = api
        .send("PUT", &format!("{API}/merge_requests/44/merge"), json!({}))
        .await;
    assert_eq!(status, 405);
}

#[tokio::test]
async fn approving_counts_once_and_unblocks_merging() {
    let api = Api::start().await;
    let (status, body) = api
        .send(
            "POST",
            &format!("{API}/merge_requests/45/approve"),
            json!({}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["approved"], json!(true));
    assert_eq!(body["approvals_left"], json!(0));
    assert_eq!(body["approved_by"][0]["user"]["username"], json!("alice"));
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/merge_requests/45/approve"),
            json!({}),
        )
        .await;
    assert_eq!(status, 401, "a second approval by the same user");
    let (_, merge_request) = api
        .send("GET", &format!("{API}/merge_requests/45"), json!({}))
        .await;
    assert_eq!(merge_request["detailed_merge_status"], json!("mergeable"));
    let (status, _) = api
        .send("PUT", &format!("{API}/merge_requests/45/merge"), json!({}))
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn creates_link_to_their_parent_and_refuse_duplicates() {
    let api = Api::start().await;
    let (status, note) = api
        .send(
            "POST",
            &format!("{API}/merge_requests/42/notes"),
            json!({"body": "Looks good"}),
        )
        .await;
    assert_eq!(status, 201);
    assert_eq!(note["noteable_iid"], json!(42));
    assert_eq!(note["author"]["username"], json!("alice"));
    let (_, merge_request) = api
        .send("GET", &format!("{API}/merge_requests/42"), json!({}))
        .await;
    let (_, notes) = api
        .send("GET", &format!("{API}/merge_requests/42/notes"), json!({}))
        .await;
    assert_eq!(
        merge_request["user_notes_count"],
        json!(notes.as_array().unwrap().len()),
        "the counter follows the comments"
    );
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/repository/branches"),
            json!({"branch": "main", "ref": "main"}),
        )
        .await;
    assert_eq!(status, 400, "an existing branch");
    let (status, body) = api
        .send(
            "POST",
            &format!("{API}/repository/branches"),
            json!({"branch": "x", "ref": "no-such-ref"}),
        )
        .await;
    assert_eq!(
        (status, body),
        (
            400,
            json!({"message": "Invalid reference name: no-such-ref"})
        )
    );
    let (status, body) = api
        .send(
            "POST",
            &format!("{API}/merge_requests"),
            json!({"source_branch": "feature/rate-limit", "target_branch": "develop", "title": "Again"}),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    let (status, body) = api
        .send("POST", "projects", json!({"name": "Hello World"}))
        .await;
    assert_eq!(status, 201);
    assert_eq!(body["path_with_namespace"], json!("alice/hello-world"));
    let (status, _) = api
        .send("POST", "projects", json!({"name": "Hello World"}))
        .await;
    assert_eq!(status, 400, "the path is taken");
}

#[tokio::test]
async fn pipelines_and_jobs_change_state() {
    let api = Api::start().await;
    let (status, pipeline) = api
        .send("POST", &format!("{API}/pipeline"), json!({"ref": "main"}))
        .await;
    assert_eq!(status, 201);
    let id = pipeline["id"].clone();
    let (_, jobs) = api
        .send("GET", &format!("{API}/pipelines/{id}/jobs"), json!({}))
        .await;
    let jobs = jobs.as_array().unwrap().clone();
    assert_eq!(jobs.len(), 3);
    let manual = jobs.iter().find(|j| j["status"] == "manual").unwrap();
    let (status, played) = api
        .send(
            "POST",
            &format!("{API}/jobs/{}/play", manual["id"]),
            json!({}),
        )
        .await;
    assert_eq!((status, played["status"].clone()), (200, json!("pending")));
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/jobs/{}/play", manual["id"]),
            json!({}),
        )
        .await;
    assert_eq!(status, 400, "no longer manual");
    let (status, canceled) = api
        .send("POST", &format!("{API}/pipelines/{id}/cancel"), json!({}))
        .await;
    assert_eq!(
        (status, canceled["status"].clone()),
        (201, json!("canceled"))
    );
    let (status, retried) = api
        .send("POST", &format!("{API}/pipelines/{id}/retry"), json!({}))
        .await;
    assert_eq!((status, retried["status"].clone()), (201, json!("running")));
    let (_, jobs) = api
        .send("GET", &format!("{API}/pipelines/{id}/jobs"), json!({}))
        .await;
    assert_eq!(
        jobs.as_array().unwrap().len(),
        6,
        "each canceled job was retried anew"
    );
    let (status, _) = api
        .send("POST", &format!("{API}/pipelines/{id}/retry"), json!({}))
        .await;
    assert_eq!(status, 403, "nothing left to retry");
}

/// Uploads `bytes` as the file `name` to acme/platform/api's wiki, on the branch `docs`.
async fn upload(api: &Api, name: &str, bytes: &'static [u8]) -> (u16, Value) {
    let form = reqwest::multipart::Form::new()
        .percent_encode_noop()
        .text("branch", "docs")
        .part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned()),
        );
    let response = api
        .http
        .post(format!(
            "{}/api/v4/{API}/wikis/attachments",
            api.sandbox.url()
        ))
        .header("PRIVATE-TOKEN", TOKEN)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    (status, body)
}

#[tokio::test]
async fn a_wiki_upload_is_read_from_a_multipart_form() {
    let api = Api::start().await;
    // A PDF is linked, under its name as GitLab stores it.
    let (status, pdf) = upload(&api, "on call v2.pdf", b"%PDF-1.7").await;
    assert_eq!(status, 201, "{pdf}");
    assert_eq!(
        (&pdf["file_name"], &pdf["branch"]),
        (&json!("on_call_v2.pdf"), &json!("docs"))
    );
    let path = pdf["file_path"].as_str().unwrap();
    assert!(
        path.starts_with("uploads/") && path.ends_with("/on_call_v2.pdf"),
        "{path}"
    );
    assert_eq!(pdf["link"]["url"], path);
    assert_eq!(pdf["link"]["markdown"], format!("[on_call_v2.pdf]({path})"));
    // An image is embedded, named by its name without the extension.
    let (_, png) = upload(&api, "deploy-flow.PNG", b"\x89PNG\r\n\x1a\n").await;
    let path = png["file_path"].as_str().unwrap();
    assert_eq!(png["link"]["markdown"], format!("![deploy-flow]({path})"));
    // No file part: Grape's refusal.
    let (status, body) = api
        .send(
            "POST",
            &format!("{API}/wikis/attachments"),
            json!({"branch": "main"}),
        )
        .await;
    assert_eq!((status, body), (400, json!({"error": "file is missing"})));
}

#[tokio::test]
async fn admin_endpoints_answer_administrators_only() {
    let api = Api::start().await;
    for (token, status) in [
        (TOKEN, 403),
        (sandbox::TOKEN_BOB, 403),
        (sandbox::TOKEN_READ_API, 403),
        (sandbox::TOKEN_ADMIN, 200),
    ] {
        for path in [
            "hooks",
            "admin/ci/variables",
            "deploy_keys",
            "deploy_tokens",
        ] {
            let response = api
                .http
                .get(format!("{}/api/v4/{path}", api.sandbox.url()))
                .header("PRIVATE-TOKEN", token)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), status, "{token} {path}");
            if status == 403 {
                let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
                assert_eq!(body, json!({"message": "403 Forbidden"}));
            }
        }
    }
}

/// The sandbox as GitLab's authorization server refuses what GitLab refuses: an unknown
/// client or an unregistered redirect URI (on its own page), a request without PKCE (on
/// the callback), a code used twice or by another client, and a confidential client
/// without its secret; a refresh token gives a new token the API accepts.
#[tokio::test]
async fn the_sandbox_signs_in_as_gitlab_does() {
    support::install_crypto();
    let gitlab = Sandbox::start_local().await.unwrap();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let callback = "http://127.0.0.1:33418/callback";
    // RFC 7636 appendix B's verifier and challenge.
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    let authorize = |client_id: &str, redirect: &str, pkce: bool| {
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", redirect),
            ("scope", "api"),
            ("state", "s1"),
        ];
        if pkce {
            query.extend([
                ("code_challenge", challenge),
                ("code_challenge_method", "S256"),
            ]);
        }
        let url =
            reqwest::Url::parse_with_params(&format!("{}/oauth/authorize", gitlab.url()), &query)
                .unwrap();
        http.get(url).send()
    };
    let location = |response: &reqwest::Response| {
        reqwest::Url::parse(response.headers()["location"].to_str().unwrap()).unwrap()
    };
    let param = |url: &reqwest::Url, name: &str| {
        url.query_pairs()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    };

    let unknown = authorize("no-such-app", callback, true).await.unwrap();
    assert_eq!(unknown.status(), 401);
    let elsewhere = authorize("sandbox-oauth-app", "https://evil.example/cb", true)
        .await
        .unwrap();
    assert_eq!(
        elsewhere.status(),
        400,
        "no redirect to an unregistered URI"
    );
    let no_pkce = authorize("sandbox-oauth-app", callback, false)
        .await
        .unwrap();
    assert_eq!(no_pkce.status(), 302);
    assert_eq!(
        param(&location(&no_pkce), "error").as_deref(),
        Some("invalid_request")
    );

    let approved = authorize("sandbox-oauth-app", callback, true)
        .await
        .unwrap();
    assert_eq!(approved.status(), 302);
    let back = location(&approved);
    assert_eq!(param(&back, "state").as_deref(), Some("s1"));
    let code = param(&back, "code").expect("a code");
    let exchange = |form: Vec<(&'static str, String)>| {
        let mut body = reqwest::Url::parse("http://form.invalid/").unwrap();
        body.query_pairs_mut().extend_pairs(form);
        http.post(format!("{}/oauth/token", gitlab.url()))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.query().unwrap_or_default().to_owned())
            .send()
    };
    let redeem = |code: &str, client_id: &str| {
        vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("client_id", client_id.to_owned()),
            ("redirect_uri", callback.to_owned()),
            ("code_verifier", verifier.to_owned()),
        ]
    };
    let confidential = exchange(redeem(&code, "another-oauth-app")).await.unwrap();
    assert_eq!(
        confidential.status(),
        401,
        "a confidential client needs its secret"
    );
    let token = json_of(exchange(redeem(&code, "sandbox-oauth-app")).await.unwrap()).await;
    assert_eq!(token["token_type"], "Bearer");
    assert_eq!(token["scope"], "api");
    let twice = exchange(redeem(&code, "sandbox-oauth-app")).await.unwrap();
    assert_eq!(twice.status(), 400);
    let twice = json_of(twice).await;
    assert_eq!(twice["error"], "invalid_grant");

    let refreshed = json_of(
        exchange(vec![
            ("grant_type", "refresh_token".to_owned()),
            (
                "refresh_token",
                token["refresh_token"].as_str().unwrap().to_owned(),
            ),
            ("client_id", "sandbox-oauth-app".to_owned()),
        ])
        .await
        .unwrap(),
    )
    .await;
    let fresh = refreshed["access_token"].as_str().unwrap();
    assert_ne!(fresh, token["access_token"].as_str().unwrap());
    let me = json_of(
        http.get(format!("{}/api/v4/user", gitlab.url()))
            .bearer_auth(fresh)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(me["username"], "alice");
    let info = json_of(
        http.get(format!("{}/oauth/token/info", gitlab.url()))
            .bearer_auth(fresh)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(info["application"]["uid"], "sandbox-oauth-app");
    assert_eq!(info["scope"], json!(["api"]));
}

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

#[tokio::test]
async fn updating_records_label_state_and_milestone_events() {
    let api = Api::start().await;
    let (status, body) = api
        .send(
            "PUT",
            &format!("{API}/issues/17"),
            json!({"add_labels": "docs", "remove_labels": "priority::high", "state_event": "close", "milestone_id": 302}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, labels) = api
        .send(
            "GET",
            &format!("{API}/issues/17/resource_label_events"),
            json!({}),
        )
        .await;
    let changes: Vec<(String, String)> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap().to_owned(),
                e["label"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        changes[changes.len() - 2..],
        [
            ("add".to_owned(), "docs".to_owned()),
            ("remove".to_owned(), "priority::high".to_owned())
        ],
        "{labels}"
    );
    assert_eq!(labels[6]["user"]["username"], json!("alice"));
    let (_, states) = api
        .send(
            "GET",
            &format!("{API}/issues/17/resource_state_events"),
            json!({}),
        )
        .await;
    assert_eq!(
        states.as_array().unwrap().last().unwrap()["state"],
        json!("closed"),
        "{states}"
    );
    let (_, milestones) = api
        .send(
            "GET",
            &format!("{API}/issues/17/resource_milestone_events"),
            json!({}),
        )
        .await;
    let last: Vec<(&str, &str)> = milestones.as_array().unwrap()[3..]
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["milestone"]["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(last, [("remove", "v1.4"), ("add", "v1.5")], "{milestones}");
    // Closing a closed issue changes nothing, so it records nothing.
    api.send(
        "PUT",
        &format!("{API}/issues/17"),
        json!({"state_event": "close"}),
    )
    .await;
    let (_, again) = api
        .send(
            "GET",
            &format!("{API}/issues/17/resource_state_events"),
            json!({}),
        )
        .await;
    assert_eq!(again.as_array().unwrap().len(), 3);
    // A merge request's label replacement records what it added and took off.
    api.send(
        "PUT",
        &format!("{API}/merge_requests/42"),
        json!({"labels": "feature,api,bug"}),
    )
    .await;
    let (_, mr_labels) = api
        .send(
            "GET",
            &format!("{API}/merge_requests/42/resource_label_events"),
            json!({}),
        )
        .await;
    let tail: Vec<(&str, &str)> = mr_labels.as_array().unwrap()[5..]
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["label"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tail,
        [("add", "bug"), ("remove", "needs-review")],
        "{mr_labels}"
    );
}

#[tokio::test]
async fn board_columns_keep_their_order_when_moved_added_and_removed() {
    let api = Api::start().await;
    let order = |body: &Value| -> Vec<(i64, i64)> {
        body.as_array()
            .unwrap()
            .iter()
            .map(|l| (l["id"].as_i64().unwrap(), l["position"].as_i64().unwrap()))
            .collect()
    };
    let (status, _) = api
        .send(
            "PUT",
            &format!("{API}/boards/41/lists/411"),
            json!({"position": 2}),
        )
        .await;
    assert_eq!(status, 200);
    let (_, lists) = api
        .send("GET", &format!("{API}/boards/41/lists"), json!({}))
        .await;
    assert_eq!(order(&lists), [(412, 0), (413, 1), (411, 2)]);
    let (status, created) = api
        .send(
            "POST",
            &format!("{API}/boards/41/lists"),
            json!({"label_id": 2006}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["position"], json!(3));
    assert_eq!(created["label"]["name"], json!("feature"));
    let (status, refused) = api
        .send(
            "POST",
            &format!("{API}/boards/41/lists"),
            json!({"label_id": 2006, "assignee_id": 2}),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    let (status, _) = api
        .send("DELETE", &format!("{API}/boards/41/lists/413"), json!({}))
        .await;
    assert_eq!(status, 204);
    let (_, lists) = api
        .send("GET", &format!("{API}/boards/41/lists"), json!({}))
        .await;
    assert_eq!(
        order(&lists)[1..],
        [(411, 1), (created["id"].as_i64().unwrap(), 2)]
    );
    let (_, board) = api
        .send("GET", &format!("{API}/boards/41"), json!({}))
        .await;
    assert_eq!(board["lists"].as_array().unwrap().len(), 3, "{board}");
}

#[tokio::test]
async fn issue_statistics_count_what_the_filters_keep() {
    let api = Api::start().await;
    let (status, body) = api
        .send(
            "GET",
            &format!("{API}/issues_statistics?labels=bug,priority::high"),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["statistics"]["counts"],
        json!({"all": 2, "closed": 0, "opened": 2})
    );
    let (_, clone) = api
        .send(
            "POST",
            &format!("{API}/issues/17/clone"),
            json!({"to_project_id": "acme/platform/api", "with_notes": true}),
        )
        .await;
    assert_eq!(clone["state"], json!("opened"));
    let (_, notes) = api
        .send(
            "GET",
            &format!("{API}/issues/{}/notes", clone["iid"]),
            json!({}),
        )
        .await;
    assert_eq!(
        notes.as_array().unwrap().len(),
        clone["user_notes_count"].as_u64().unwrap() as usize
    );
    let (_, after) = api
        .send(
            "GET",
            &format!("{API}/issues_statistics?labels=bug,priority::high"),
            json!({}),
        )
        .await;
    assert_eq!(
        after["statistics"]["counts"]["opened"],
        json!(3),
        "the copy counts too"
    );
}

#[tokio::test]
async fn approval_settings_persist_and_suggestions_apply_once() {
    let api = Api::start().await;
    let (status, body) = api
        .send(
            "POST",
            &format!("{API}/approvals"),
            json!({"reset_approvals_on_push": false}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let (_, settings) = api
        .send("GET", &format!("{API}/approvals"), json!({}))
        .await;
    assert_eq!(settings["reset_approvals_on_push"], json!(false));
    assert_eq!(
        settings["merge_requests_author_approval"],
        json!(false),
        "unchanged"
    );
    let (status, refused) = api
        .send(
            "POST",
            &format!("{API}/approval_rules"),
            json!({"name": "Security", "approvals_required": 1}),
        )
        .await;
    assert_eq!(status, 400, "a rule's name is unique: {refused}");
    let (status, _) = api.send("PUT", "suggestions/3104/apply", json!({})).await;
    assert_eq!(status, 400, "already applied");
    let (status, _) = api
        .send(
            "PUT",
            "suggestions/batch_apply",
            json!({"ids": [3101, 3102]}),
        )
        .await;
    assert_eq!(status, 400, "two merge requests");
    let (status, _) = api
        .send(
            "PUT",
            "suggestions/batch_apply",
            json!({"ids": [3102, 9999]}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, applied) = api
        .send(
            "PUT",
            "suggestions/batch_apply",
            json!({"ids": [3102, 3103]}),
        )
        .await;
    assert_eq!(status, 200, "{applied}");
    let (status, _) = api.send("PUT", "suggestions/3102/apply", json!({})).await;
    assert_eq!(status, 400, "applied by the batch");
}

#[tokio::test]
async fn a_merge_request_joins_its_train_once_and_only_while_open() {
    let api = Api::start().await;
    let (status, _) = api
        .send(
            "GET",
            &format!("{API}/merge_trains/merge_requests/43"),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "!43 is on no train yet");
    let (status, refused) = api
        .send(
            "POST",
            &format!("{API}/merge_trains/merge_requests/43"),
            json!({"sha": "0000000000000000000000000000000000000000"}),
        )
        .await;
    assert_eq!(status, 409, "the source branch moved: {refused}");
    let (status, train) = api
        .send(
            "POST",
            &format!("{API}/merge_trains/merge_requests/43"),
            json!({"squash": true}),
        )
        .await;
    assert_eq!(status, 201, "{train}");
    assert_eq!(train[0]["merge_request"]["iid"], json!(43), "newest first");
    assert_eq!(
        train.as_array().map(Vec::len),
        Some(4),
        "develop's whole train"
    );
    let (_, merge_request) = api
        .send("GET", &format!("{API}/merge_requests/43"), json!({}))
        .await;
    assert_eq!(merge_request["squash"], json!(true));
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/merge_trains/merge_requests/43"),
            json!({}),
        )
        .await;
    assert_eq!(status, 400, "already on the train");
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/merge_trains/merge_requests/28"),
            json!({}),
        )
        .await;
    assert_eq!(status, 400, "merged already");
    let (_, active) = api
        .send(
            "GET",
            &format!("{API}/merge_trains/develop"),
            json!({"scope": "active"}),
        )
        .await;
    assert_eq!(active.as_array().map(Vec::len), Some(3), "{active}");
    let (_, none) = api
        .send("GET", &format!("{API}/merge_trains/main"), json!({}))
        .await;
    assert_eq!(none, json!([]), "a branch without a train");
}

#[tokio::test]
async fn drafts_and_reactions_on_comments_are_their_authors_own() {
    let api = Api::start().await;
    let mr = format!("{API}/merge_requests/42");
    let (status, _) = api
        .send("GET", &format!("{mr}/draft_notes/73"), json!({}))
        .await;
    assert_eq!(status, 404, "carol's draft is hers alone");
    let (status, _) = api
        .send(
            "PUT",
            &format!("{mr}/draft_notes/73"),
            json!({"note": "changed"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, draft) = api
        .send(
            "PUT",
            &format!("{mr}/draft_notes/71"),
            json!({"note": "changed"}),
        )
        .await;
    assert_eq!(status, 200, "{draft}");
    assert_eq!(draft["note"], json!("changed"));
    let (status, _) = api
        .send(
            "DELETE",
            &format!("{mr}/notes/600001/award_emoji/930001"),
            json!({}),
        )
        .await;
    assert_eq!(status, 403, "bob's reaction");
    let (status, _) = api
        .send(
            "DELETE",
            &format!("{mr}/notes/600001/award_emoji/930002"),
            json!({}),
        )
        .await;
    assert_eq!(status, 204);
    let (_, left) = api
        .send("GET", &format!("{mr}/notes/600001/award_emoji"), json!({}))
        .await;
    assert_eq!(left.as_array().map(Vec::len), Some(1), "{left}");
}

#[tokio::test]
async fn snippet_threads_are_its_comments_grouped() {
    let api = Api::start().await;
    let snippet = format!("{API}/snippets/511");
    let thread = "c5d2a1f3e4b6079889706b5c4d3e2f1a0b9c8d7e";
    let single = "b4c1f0e2d3a5968778695a4b3c2d1e0f9a8b7c6d";
    // A reply to carol's single comment makes it a thread, and shows in the flat list.
    let (status, reply) = api
        .send(
            "POST",
            &format!("{snippet}/discussions/{single}/notes"),
            json!({"body": "Same on production."}),
        )
        .await;
    assert_eq!(status, 201, "{reply}");
    let (_, got) = api
        .send("GET", &format!("{snippet}/discussions/{single}"), json!({}))
        .await;
    assert_eq!(got["individual_note"], json!(false), "{got}");
    assert_eq!(got["notes"].as_array().map(Vec::len), Some(2), "{got}");
    assert_eq!(got["notes"][0]["type"], json!("DiscussionNote"), "{got}");
    let (_, notes) = api
        .send("GET", &format!("{snippet}/notes"), json!({}))
        .await;
    assert!(notes.as_array().unwrap().contains(&reply), "{notes}");
    // A comment of another thread, bob's comment, an unknown thread.
    let (status, _) = api
        .send(
            "PUT",
            &format!("{snippet}/discussions/{single}/notes/640002"),
            json!({"body": "moved"}),
        )
        .await;
    assert_eq!(status, 404, "640002 is in another thread");
    let (status, _) = api
        .send(
            "DELETE",
            &format!("{snippet}/discussions/{thread}/notes/640003"),
            json!({}),
        )
        .await;
    assert_eq!(status, 403, "bob's reply");
    let (status, _) = api
        .send(
            "POST",
            &format!("{snippet}/discussions/{}/notes", "0".repeat(40)),
            json!({"body": "hello"}),
        )
        .await;
    assert_eq!(status, 404, "no such thread");
    // A new thread is listed last; deleting a reply leaves the thread's others.
    let (status, started) = api
        .send(
            "POST",
            &format!("{snippet}/discussions"),
            json!({"body": "Pin k6?"}),
        )
        .await;
    assert_eq!(status, 201, "{started}");
    let (status, _) = api
        .send(
            "DELETE",
            &format!("{snippet}/discussions/{thread}/notes/640005"),
            json!({}),
        )
        .await;
    assert_eq!(status, 204);
    let (_, threads) = api
        .send("GET", &format!("{snippet}/discussions"), json!({}))
        .await;
    let threads = threads.as_array().unwrap();
    assert_eq!(threads.len(), 4, "{threads:?}");
    assert_eq!(threads[3]["id"], started["id"]);
    assert_eq!(threads[1]["notes"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn commit_comments_and_threads_are_one_list() {
    let api = Api::start().await;
    let commit = format!("{API}/repository/commits/98d33ab4");
    // A line comment answers as a commit comment and is a thread of its own, on that line.
    let (status, comment) = api
        .send(
            "POST",
            &format!("{commit}/comments"),
            json!({"note": "Old bound?", "path": "src/api/rate_limit.rs", "line": 40, "line_type": "old"}),
        )
        .await;
    assert_eq!(status, 201, "{comment}");
    assert_eq!(comment["line_type"], json!("old"), "{comment}");
    assert_eq!(comment["line"], json!(40), "{comment}");
    let (_, threads) = api
        .send("GET", &format!("{commit}/discussions"), json!({}))
        .await;
    let threads = threads.as_array().unwrap();
    assert_eq!(threads.len(), 3, "{threads:?}");
    let position = &threads[2]["notes"][0]["position"];
    assert_eq!(position["old_line"], json!(40), "{position}");
    assert_eq!(
        position["head_sha"],
        json!("98d33ab487a96b8076970f67de51c0a6c6a3b76b")
    );
    let (status, _) = api
        .send("POST", &format!("{commit}/comments"), json!({}))
        .await;
    assert_eq!(status, 400, "a comment needs its text");
    // carol's comment is hers; a reply shows in the flat list.
    let thread = "e7f4c3b5a6d8291aa1928d7e6f5a4b3c2d1e0fa9";
    let (status, _) = api
        .send(
            "PUT",
            &format!("{commit}/discussions/{thread}/notes/650001"),
            json!({"body": "changed"}),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = api
        .send(
            "POST",
            &format!("{commit}/discussions/{thread}/notes"),
            json!({"body": "Agreed."}),
        )
        .await;
    assert_eq!(status, 201);
    let (_, comments) = api
        .send("GET", &format!("{commit}/comments"), json!({}))
        .await;
    assert_eq!(comments.as_array().map(Vec::len), Some(5), "{comments}");
}

#[tokio::test]
async fn reactions_on_snippets_and_comments_are_given_once_and_taken_back_by_their_giver() {
    let api = Api::start().await;
    for (path, theirs, mine) in [
        (format!("{API}/snippets/511/award_emoji"), 950001, 950002),
        (
            format!("{API}/snippets/511/notes/640001/award_emoji"),
            960001,
            960002,
        ),
        (
            format!("{API}/issues/17/notes/600008/award_emoji"),
            940001,
            940002,
        ),
    ] {
        let (status, added) = api.send("POST", &path, json!({"name": "rocket"})).await;
        assert_eq!(status, 201, "{path}: {added}");
        let (status, _) = api.send("POST", &path, json!({"name": "rocket"})).await;
        assert_eq!(status, 404, "{path}: the same emoji twice");
        let (status, _) = api
            .send("DELETE", &format!("{path}/{theirs}"), json!({}))
            .await;
        assert_eq!(status, 403, "{path}: another's reaction");
        let (status, _) = api
            .send("DELETE", &format!("{path}/{mine}"), json!({}))
            .await;
        assert_eq!(status, 204, "{path}");
        let (_, left) = api.send("GET", &path, json!({})).await;
        assert_eq!(left.as_array().map(Vec::len), Some(2), "{path}: {left}");
    }
}

#[tokio::test]
async fn epic_reactions_name_the_epic_by_its_number() {
    let api = Api::start().await;
    let epic = "groups/acme%2Fplatform/epics/1";
    for (path, theirs, mine) in [
        (format!("{epic}/award_emoji"), 970001, 970002),
        (format!("{epic}/notes/660001/award_emoji"), 980001, 980002),
    ] {
        let (status, added) = api.send("POST", &path, json!({"name": "eyes"})).await;
        assert_eq!(status, 201, "{path}: {added}");
        let (status, _) = api.send("POST", &path, json!({"name": "eyes"})).await;
        assert_eq!(status, 404, "{path}: the same emoji twice");
        let (status, _) = api
            .send("DELETE", &format!("{path}/{theirs}"), json!({}))
            .await;
        assert_eq!(status, 403, "{path}: another's reaction");
        let (status, _) = api
            .send("DELETE", &format!("{path}/{mine}"), json!({}))
            .await;
        assert_eq!(status, 204, "{path}");
        let (_, left) = api.send("GET", &path, json!({})).await;
        assert_eq!(left.as_array().map(Vec::len), Some(2), "{path}: {left}");
    }
    let (status, _) = api
        .send(
            "GET",
            "groups/acme%2Fplatform/epics/9/award_emoji",
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "no epic &9");
}

/// A vulnerability's triage moves its state, GitLab's 304 when it is already so, and a
/// revert undoes it.
#[tokio::test]
async fn vulnerability_triage_moves_its_state_and_refuses_no_change() {
    let api = Api::start().await;
    let (status, confirmed) = api
        .send("POST", "vulnerabilities/301/confirm", json!({}))
        .await;
    assert_eq!(status, 201, "{confirmed}");
    assert_eq!(confirmed["state"], json!("confirmed"));
    assert_eq!(confirmed["confirmed_by_id"], json!(1));
    let (status, _) = api
        .send("POST", "vulnerabilities/301/confirm", json!({}))
        .await;
    assert_eq!(status, 304, "confirming twice");
    let (status, dismissed) = api
        .send(
            "POST",
            "vulnerabilities/301/dismiss",
            json!({"dismissal_reason": "false_positive", "comment": "Only in a dev tool."}),
        )
        .await;
    assert_eq!(status, 201, "{dismissed}");
    assert_eq!(dismissed["state"], json!("dismissed"));
    assert_eq!(dismissed["dismissal_reason"], json!("false_positive"));
    let (status, reverted) = api
        .send("POST", "vulnerabilities/301/revert", json!({}))
        .await;
    assert_eq!(status, 201, "{reverted}");
    assert_eq!(reverted["state"], json!("detected"));
    assert_eq!(reverted["dismissed_at"], Value::Null);
    assert_eq!(reverted["confirmed_at"], Value::Null);
    let (status, _) = api
        .send("POST", "vulnerabilities/301/revert", json!({}))
        .await;
    assert_eq!(status, 304, "reverting a detected vulnerability");
}

/// A vulnerability export is built in the background (202 while it runs), then its CSV
/// has a line per vulnerability; only its author reads it.
#[tokio::test]
async fn a_vulnerability_export_runs_then_downloads_its_csv() {
    let api = Api::start().await;
    let (status, export) = api
        .send(
            "POST",
            "security/projects/acme%2Fplatform%2Fapi/vulnerability_exports",
            json!({}),
        )
        .await;
    assert_eq!(status, 201, "{export}");
    assert_eq!(export["status"], json!("created"));
    assert_eq!(export["project_id"], json!(101));
    let id = export["id"].as_i64().unwrap();
    let path = format!("security/vulnerability_exports/{id}");
    let (status, _) = api
        .send("GET", &format!("{path}/download"), json!({}))
        .await;
    assert_eq!(status, 404, "not finished yet");
    let mut seen = Vec::new();
    for _ in 0..3 {
        let (status, read) = api.send("GET", &path, json!({})).await;
        seen.push((
            status,
            read["status"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    let expected: Vec<(u16, String)> = [(202, "created"), (202, "running"), (200, "finished")]
        .iter()
        .map(|(s, t)| (*s, (*t).to_owned()))
        .collect();
    assert_eq!(seen, expected);
    let csv = api
        .http
        .get(format!("{}/api/v4/{path}/download", api.sandbox.url()))
        .header("PRIVATE-TOKEN", TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 6, "a header and five vulnerabilities: {csv}");
    assert!(lines[0].starts_with("Project,Tool,Status"), "{csv}");
    assert!(csv.contains("SQL injection in account search"), "{csv}");
    let status = api
        .http
        .get(format!("{}/api/v4/{path}", api.sandbox.url()))
        .header("PRIVATE-TOKEN", sandbox::TOKEN_BOB)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16();
    assert_eq!(status, 404, "another user's export");
}

/// Job artifacts: browsed a folder at a time, kept from expiring, and expired in bulk
/// except those of each ref's latest successful pipeline.
#[tokio::test]
async fn job_artifacts_are_browsed_kept_and_expired_in_bulk() {
    let api = Api::start().await;
    let (status, root) = api
        .send(
            "GET",
            &format!("{API}/jobs/70040/artifacts/tree"),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{root}");
    let paths: Vec<&str> = root
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["path"].as_str())
        .collect();
    assert_eq!(paths, ["dist/", "target/"]);
    let (_, dist) = api
        .send(
            "GET",
            &format!("{API}/jobs/70040/artifacts/tree?path=dist"),
            json!({}),
        )
        .await;
    assert_eq!(dist[0]["path"], json!("dist/CHANGELOG.md"));
    assert_eq!(dist[0]["type"], json!("file"));
    assert_eq!(dist[0]["size"], json!(187));
    let (_, all) = api
        .send(
            "GET",
            &format!("{API}/jobs/70040/artifacts/tree?recursive=true"),
            json!({}),
        )
        .await;
    assert_eq!(all.as_array().map(Vec::len), Some(6), "{all}");
    let (status, kept) = api
        .send(
            "POST",
            &format!("{API}/jobs/70042/artifacts/keep"),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{kept}");
    assert_eq!(kept["artifacts_expire_at"], Value::Null);
    let (status, _) = api
        .send(
            "POST",
            &format!("{API}/jobs/70041/artifacts/keep"),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "a job without artifacts");
    let (status, _) = api
        .send("DELETE", &format!("{API}/artifacts"), json!({}))
        .await;
    assert_eq!(status, 202);
    let (_, expired) = api
        .send("GET", &format!("{API}/jobs/70040"), json!({}))
        .await;
    assert_ne!(
        expired["artifacts_expire_at"],
        json!("2025-07-01T00:00:00.000Z")
    );
    let (_, locked) = api
        .send("GET", &format!("{API}/jobs/70023"), json!({}))
        .await;
    assert_eq!(
        locked["artifacts_expire_at"],
        json!("2025-07-01T00:00:00.000Z")
    );
}

/// A public deploy key an administrator adds belongs to no project and joins the
/// instance's list; the same key again is refused. The instance's deploy tokens are
/// every project's, `active` keeping the usable ones.
#[tokio::test]
async fn public_deploy_keys_join_the_instance_list() {
    let api = Api::start().await;
    let key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3kq7Vd2pXw0rN5bT8yLm4sQe6uJc9aZf1gYh2iKo7P backup@acme";
    let admin = |post: bool, path: &str, body: Value| {
        let url = format!("{}/api/v4/{path}", api.sandbox.url());
        let request = if post {
            api.http.post(url)
        } else {
            api.http.get(url)
        };
        async move {
            let response = request
                .header("PRIVATE-TOKEN", sandbox::TOKEN_ADMIN)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            let text = response.text().await.unwrap();
            (
                status,
                serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
            )
        }
    };
    let (status, created) = admin(
        true,
        "deploy_keys",
        json!({"title": "backup server", "key": key}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["title"], json!("backup server"));
    let (status, _) = admin(true, "deploy_keys", json!({"title": "twice", "key": key})).await;
    assert_eq!(status, 400, "the same key twice");
    let (_, listed) = admin(false, "deploy_keys", json!({})).await;
    let titles: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|k| k["title"].as_str())
        .collect();
    assert!(titles.contains(&"backup server"), "{listed}");
    let (_, project) = api
        .send("GET", &format!("{API}/deploy_keys"), json!({}))
        .await;
    assert!(
        !project.to_string().contains("backup server"),
        "a public key is on no project until enabled: {project}"
    );
    let (_, active) = admin(false, "deploy_tokens?active=true", json!({})).await;
    let active = active.as_array().unwrap();
    assert!(!active.is_empty());
    assert!(
        active
            .iter()
            .all(|t| t["revoked"] == json!(false) && t["expired"] == json!(false)),
        "{active:?}"
    );
}

/// `GET /users` narrows by the account's state, kind and creation time, and `admins` only
/// for an administrator: GitLab ignores it for anyone else.
#[tokio::test]
async fn users_are_filtered_by_state_kind_and_creation() {
    let api = Api::start().await;
    let usernames = |token: &'static str, query: &'static str| {
        let url = format!("{}/api/v4/users?per_page=100&{query}", api.sandbox.url());
        let request = api.http.get(url).header("PRIVATE-TOKEN", token);
        async move {
            let users: Value =
                serde_json::from_str(&request.send().await.unwrap().text().await.unwrap()).unwrap();
            let mut names: Vec<String> = users
                .as_array()
                .unwrap()
                .iter()
                .map(|u| u["username"].as_str().unwrap().to_owned())
                .collect();
            names.sort();
            names
        }
    };
    assert_eq!(usernames(TOKEN, "blocked=true").await, ["frank"]);
    assert_eq!(usernames(TOKEN, "external=true").await, ["frank"]);
    assert!(
        !usernames(TOKEN, "humans=true")
            .await
            .contains(&"renovate-bot".to_owned())
    );
    let everyone = usernames(TOKEN, "").await;
    assert!(everyone.len() > 2);
    assert_eq!(usernames(TOKEN, "admins=true").await, everyone);
    assert_eq!(
        usernames(sandbox::TOKEN_ADMIN, "admins=true").await,
        ["root"]
    );
    let joined = usernames(
        TOKEN,
        "created_after=2025-05-01&created_before=2025-06-01T20:00:00Z",
    )
    .await;
    assert_eq!(joined, ["gina", "ivan"]);
}
