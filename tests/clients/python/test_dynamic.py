"""The built gitlab-mcp binary, driven by the official MCP Python SDK over stdio on the
default (dynamic) surface: find an action, run it, validate every structured result
against the tool's output schema, and check that failures are repairable isError results.

Run: `python test_dynamic.py` (GITLAB_MCP_BIN names the binary; default: the debug build).
"""

import asyncio
import json
import os
import pathlib
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = pathlib.Path(__file__).resolve().parent
BINARY = os.environ.get("GITLAB_MCP_BIN", str(HERE.parents[2] / "target" / "debug" / "gitlab-mcp"))

READS = [
    ("project.get", {"project_id": "acme/platform/api"}),
    ("merge_request.list", {"project_id": "acme/platform/api", "state": "opened"}),
    ("merge_request.get", {"project": "acme/platform/api", "mr_iid": 42}),
    ("pipeline.latest", {"project_id": "acme/platform/api"}),
    ("job.log", {"project_id": "acme/platform/api", "job_id": 70042, "lines": 20}),
    ("repository.file_get", {"project_id": "acme/platform/api", "file_path": "README.md"}),
]


def text_of(result):
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def main():
    server = StdioServerParameters(command=BINARY, args=["--sandbox", "serve"], env={"TOOL_SURFACE": "dynamic"})
    async with stdio_client(server, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            check(set(tools) == {"gitlab_find_action", "gitlab_execute_action"}, f"two dynamic tools, got {sorted(tools)}")
            execute_schema = tools["gitlab_execute_action"].output_schema

            found = await session.call_tool("gitlab_find_action", {"query": "open merge requests in a project", "limit": 5})
            check(not found.is_error, text_of(found))
            jsonschema.validate(found.structured_content, tools["gitlab_find_action"].output_schema)
            ids = [hit["id"] for hit in found.structured_content["results"]]
            check(ids[0] == "merge_request.list", f"find ranks merge_request.list first: {ids}")

            for action, params in READS:
                result = await session.call_tool("gitlab_execute_action", {"action": action, "params": params})
                text = text_of(result)
                check(not result.is_error, f"{action}: {text}")
                check(text.startswith("## "), f"{action}: Markdown, not a JSON dump: {text[:80]!r}")
                jsonschema.validate(result.structured_content, execute_schema)
                # The exact per-action schema is a resource; the result matches it too.
                described = await session.read_resource(f"gitlab://tools/{action}")
                jsonschema.validate(result.structured_content, json.loads(described.contents[0].text)["output_schema"])

            missing = await session.call_tool(
                "gitlab_execute_action", {"action": "issue.get", "params": {"project_id": "acme/platform/api", "issue_iid": 999}}
            )
            check(missing.is_error and "Not Found" in text_of(missing), text_of(missing))
            unknown = await session.call_tool("gitlab_execute_action", {"action": "pipeline.lastest", "params": {}})
            check(unknown.is_error and "pipeline.latest" in text_of(unknown), text_of(unknown))
            refused = await session.call_tool(
                "gitlab_execute_action",
                {"action": "branch.delete", "params": {"project_id": "acme/platform/api", "branch_name": "fix/login-pipe"}},
            )
            check(refused.is_error and "confirm: true" in text_of(refused), text_of(refused))
    print("python client: dynamic surface ok")


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        sys.exit(1)
