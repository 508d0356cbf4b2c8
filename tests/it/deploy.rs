//! The deployment files: the Dockerfile builds in two stages into a small image that runs
//! as an unprivileged user, and the Kubernetes example runs several replicas with probes
//! on /health and resource requests. Where a container runtime with a running engine
//! (docker or podman) is available, the image is built and its binary run; where none is,
//! the test says so on stderr and checks the files only.

use std::path::Path;
use std::process::Command;

use serde::Deserialize as _;
use serde_yaml::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn dockerfile() -> String {
    std::fs::read_to_string(Path::new(ROOT).join("Dockerfile")).expect("a Dockerfile")
}

/// A Dockerfile stage: its name (`AS name`), what it is built `FROM`, and its instructions.
struct Stage<'a> {
    name: Option<&'a str>,
    base: &'a str,
    body: Vec<&'a str>,
}

fn stages(text: &str) -> Vec<Stage<'_>> {
    let mut stages: Vec<Stage> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(from) = line.strip_prefix("FROM ") {
            let mut words = from.split_whitespace();
            let base = words.next().expect("FROM names a base");
            let name = match (words.next(), words.next()) {
                (Some(as_), name) if as_.eq_ignore_ascii_case("AS") => name,
                _ => None,
            };
            stages.push(Stage {
                name,
                base,
                body: Vec::new(),
            });
        } else if let Some(stage) = stages.last_mut() {
            stage.body.push(line);
        }
    }
    stages
}

/// What an image built from `stage` runs with: its own instructions after those of the
/// stages it is built from.
fn image<'a>(stages: &[Stage<'a>], stage: &Stage<'a>) -> Vec<&'a str> {
    let mut instructions = match stages.iter().find(|s| s.name == Some(stage.base)) {
        Some(base) => image(stages, base),
        None => Vec::new(),
    };
    instructions.extend(&stage.body);
    instructions
}

#[test]
fn the_dockerfile_builds_in_stages_and_runs_as_non_root() {
    let text = dockerfile();
    let stages = stages(&text);
    assert!(stages.len() >= 2, "a build stage and a runtime stage");
    // The default image (`docker build .`) and the released one (`--target release`).
    let release = stages
        .iter()
        .find(|s| s.name == Some("release"))
        .expect("a `release` stage (packaging/container.sh)");
    for stage in [stages.last().unwrap(), release] {
        let runtime = image(&stages, stage);
        let user = runtime
            .iter()
            .find_map(|l| l.strip_prefix("USER "))
            .expect("the runtime stage sets USER");
        assert!(
            !["root", "0", "0:0"].contains(&user.trim()),
            "runs as {user}"
        );
        assert!(
            stage
                .body
                .iter()
                .any(|l| l.starts_with("COPY --from=") && l.contains("gitlab-mcp")),
            "the runtime stage copies only the binary"
        );
        assert!(runtime.contains(&"EXPOSE 8080"));
        assert!(
            runtime
                .iter()
                .any(|l| l.contains("GITLAB_MCP_HTTP=0.0.0.0:8080"))
        );
    }
}

fn kubernetes() -> Vec<Value> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/kubernetes.yaml"))
        .expect("docs/kubernetes.yaml");
    serde_yaml::Deserializer::from_str(&text)
        .map(|document| Value::deserialize(document).expect("valid YAML"))
        .filter(|document| !document.is_null())
        .collect()
}

#[test]
fn the_kubernetes_example_runs_replicas_with_probes_and_requests() {
    let documents = kubernetes();
    let kind = |name: &str| {
        documents
            .iter()
            .find(|d| d["kind"] == name)
            .unwrap_or_else(|| panic!("a {name}"))
    };
    let deployment = kind("Deployment");
    let replicas = deployment["spec"]["replicas"].as_u64().unwrap_or(1);
    assert!(replicas >= 2, "{replicas} replicas");
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let container = &pod["containers"][0];
    for probe in ["readinessProbe", "livenessProbe"] {
        assert_eq!(container[probe]["httpGet"]["path"], "/health", "{probe}");
        assert_eq!(container[probe]["httpGet"]["port"], 8080, "{probe}");
    }
    for resource in ["cpu", "memory"] {
        assert!(
            container["resources"]["requests"][resource].is_string(),
            "requests.{resource}"
        );
    }
    assert!(container["resources"]["limits"]["memory"].is_string());
    let env: Vec<&str> = container["env"]
        .as_sequence()
        .expect("env")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    for name in ["GITLAB_URL", "GITLAB_MCP_ALLOWED_HOSTS"] {
        assert!(env.contains(&name), "{name} is set");
    }
    assert!(
        !env.contains(&"GITLAB_TOKEN"),
        "each request brings its own token"
    );
    let service = kind("Service");
    assert_eq!(service["spec"]["ports"][0]["targetPort"], 8080);
    assert_eq!(
        service["spec"]["selector"],
        deployment["spec"]["selector"]["matchLabels"]
    );
}

/// The sizing comment of the Kubernetes example quotes the load test: each figure it gives
/// (calls/s, p99, CPU per call, RSS) is one BENCHMARKS.md's "HTTP under load" section has.
#[test]
fn the_kubernetes_sizing_quotes_the_load_test() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/kubernetes.yaml")).unwrap();
    let sizing: String = text
        .lines()
        .skip_while(|line| !line.starts_with("# Sizing"))
        .take_while(|line| line.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let benchmarks = std::fs::read_to_string(Path::new(ROOT).join("BENCHMARKS.md")).unwrap();
    let load = benchmarks
        .split("\n## HTTP under load")
        .nth(1)
        .expect("BENCHMARKS.md has the load section (`cargo bench --bench load -- --write`, then the report)");
    // A measured figure is a number followed by its unit, as the load table writes them.
    let words: Vec<&str> = sizing
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|word| !word.is_empty())
        .collect();
    let figures: Vec<String> = words
        .windows(2)
        .filter(|pair| pair[0].starts_with(|c: char| c.is_ascii_digit()))
        .filter(|pair| {
            ["calls/s", "ms", "µs", "MiB"].contains(&pair[1].trim_end_matches(['.', ';', ':']))
        })
        .map(|pair| format!("{} {}", pair[0], pair[1].trim_end_matches(['.', ';', ':'])))
        .collect();
    assert!(figures.len() >= 3, "the sizing gives its figures: {sizing}");
    for figure in figures {
        let number = figure.split(' ').next().unwrap();
        assert!(
            load.contains(&format!("{figure} |"))
                || load.contains(&format!("| {number} |"))
                || load.contains(&format!(" {figure},")),
            "docs/kubernetes.yaml quotes {figure}, which the load section of BENCHMARKS.md does not have"
        );
    }
}

/// docker or podman, when its engine answers.
fn container_runtime() -> Option<&'static str> {
    ["docker", "podman"].into_iter().find(|runtime| {
        Command::new(runtime)
            .arg("info")
            .output()
            .is_ok_and(|output| output.status.success())
    })
}

#[test]
fn the_image_builds_where_a_container_runtime_is_available() {
    let Some(runtime) = container_runtime() else {
        eprintln!(
            "SKIPPED: no container runtime with a running engine (docker or podman) on this machine, so the image was not built; the Dockerfile and docs/kubernetes.yaml were checked as files only."
        );
        return;
    };
    let tag = "gitlab-mcp:test-build";
    let build = Command::new(runtime)
        .args(["build", "-t", tag, ROOT])
        .status()
        .expect("the build runs");
    assert!(build.success(), "{runtime} build failed");
    let version = Command::new(runtime)
        .args(["run", "--rm", tag, "--version"])
        .output()
        .expect("the image runs");
    assert!(
        String::from_utf8_lossy(&version.stdout).starts_with("gitlab-mcp "),
        "{version:?}"
    );
    let user = Command::new(runtime)
        .args(["image", "inspect", "-f", "{{.Config.User}}", tag])
        .output()
        .expect("inspect runs");
    let user = String::from_utf8_lossy(&user.stdout).trim().to_owned();
    assert!(
        !user.is_empty() && user != "root" && user != "0",
        "user {user}"
    );
}
