//! The `gitlab-mcp` binary: `gitlab_mcp::entry::main` does the work (why there: its module
//! comment).

fn main() -> std::process::ExitCode {
    gitlab_mcp::entry::main()
}
