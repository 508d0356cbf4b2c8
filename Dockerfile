# gitlab-mcp as a team server: MCP over Streamable HTTP on port 8080, each request with
# its own user's GitLab token. Two stages: build with the Rust toolchain, then copy the
# one binary into a distroless image (glibc and CA certificates, no shell) that runs as
# an unprivileged user.
#
#   docker build -t gitlab-mcp .
#   docker run --rm -p 8080:8080 -e GITLAB_URL=https://gitlab.example.com \
#     -e GITLAB_MCP_ALLOWED_HOSTS=localhost gitlab-mcp
#
# docs/kubernetes.yaml runs it with two replicas; README.md says when to use HTTP.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin gitlab-mcp \
    && cp target/release/gitlab-mcp /gitlab-mcp

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /gitlab-mcp /usr/local/bin/gitlab-mcp
# distroless's `nonroot` user (uid 65532); nothing in the image is writable by it.
USER nonroot
# Listen on every interface inside the container; which Host names are answered is
# GITLAB_MCP_ALLOWED_HOSTS (loopback only until the operator names the server's host).
ENV GITLAB_MCP_HTTP=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gitlab-mcp"]
CMD ["serve"]
