# gitlab-mcp as a team server: MCP over Streamable HTTP on port 8080, each request with
# its own user's GitLab token. Two stages: build with the Rust toolchain, then copy the
# one binary into a distroless image (glibc and CA certificates, no shell) that runs as
# an unprivileged user.
#
#   docker build -t gitlab-mcp .
#   docker run --rm -p 8080:8080 -e GITLAB_URL=https://gitlab.example.com \
#     -e GITLAB_MCP_ALLOWED_HOSTS=localhost gitlab-mcp
#
# docs/kubernetes.yaml runs it with two replicas; README.md says when to use HTTP. The
# released image is the `release` stage (packaging/container.sh).

# The runtime both images share; the released one runs on distroless/static instead.
ARG RUNTIME=gcr.io/distroless/cc-debian12:nonroot

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin gitlab-mcp \
    && cp target/release/gitlab-mcp /gitlab-mcp

FROM ${RUNTIME} AS runtime
# distroless's `nonroot` user (uid 65532); nothing in the image is writable by it.
USER nonroot
# Listen on every interface inside the container; which Host names are answered is
# GITLAB_MCP_ALLOWED_HOSTS (loopback only until the operator names the server's host).
ENV GITLAB_MCP_HTTP=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/gitlab-mcp"]
CMD ["serve"]

# The released multi-arch image: the static musl binaries the release workflow built for
# each platform, passed in as the `prebuilt` build context; no compiler runs.
FROM runtime AS release
ARG TARGETARCH
COPY --from=prebuilt ${TARGETARCH}/gitlab-mcp /usr/local/bin/gitlab-mcp

# The default (`docker build .`): built from this source tree.
FROM runtime
COPY --from=build /gitlab-mcp /usr/local/bin/gitlab-mcp
