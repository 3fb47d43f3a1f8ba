"""The service_accounts example's `/mcp` endpoint, used by the official MCP Python SDK.

The Rust tests drive `/mcp` with rmcp, the library the server is built on. This drives it with
another implementation of the protocol, so that what the endpoint promises does not rest on two
halves of one library agreeing with each other. Each check says what it expects; the first that
fails stops the run with exit status 1 and says why.

Usage: python mcp_interop.py URL   (URL: the service's base, e.g. http://127.0.0.1:8080)

The service must be fresh (it archives accounts) and started with enough accounts for several
pages (`--accounts 300`, as `.ci/mcp-interop` does).
"""

import asyncio
import json
import sys

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

PAGE = 2


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


def envelope(result, tool):
    """The result's envelope, after checking that the result is one: not an error, and its
    first text block the one-line verdict followed by the same JSON as `structuredContent`."""
    text = result.content[0].text if result.content else ""
    check(not result.is_error, f"{tool} answers a result, not an error: {text[:200]}")
    structured = result.structured_content
    check(isinstance(structured, dict), f"{tool} has structuredContent")
    verdict, _, body = text.partition("\n")
    check(verdict and json.loads(body) == structured, f"{tool}: the text block is a verdict line and the same JSON")
    return structured


def refusal(result, tool, code):
    """Checks that `result` is a tool error refusing with problem `code`; its text."""
    text = result.content[0].text if result.content else ""
    check(result.is_error, f"{tool} is refused with a tool error")
    check(text.startswith(f"REFUSED ({code})"), f"{tool} is refused with {code}: {text[:120]}")
    return text


def client(token):
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)


async def traverse(mcp, **filters):
    """Every page of `list_service_accounts` with `filters`, by cursor; the pages."""
    pages = []
    cursor = None
    while True:
        arguments = dict(filters, page_size=PAGE)
        if cursor is not None:
            arguments["cursor"] = cursor
        page = envelope(await mcp.call_tool("list_service_accounts", arguments), "list_service_accounts")
        pages.append(page)
        check(len(pages) < 1000, "the traversal ends")
        if page["complete"]:
            return pages
        codes = [reason["code"] for reason in page["incomplete_reasons"]]
        check(codes == ["MORE_PAGES_AVAILABLE"], f"an admin page is incomplete only by paging: {codes}")
        check(page["continuation"] == {"kind": "next_cursor", "cursor": page["next_cursor"]}, "the continuation is the cursor")
        cursor = page["next_cursor"]


async def admin_over_a_session(url):
    """The handshake of 2025-11-25 and earlier (`initialize`, a session), as `admin`."""
    async with client("admin") as http, streamable_http_client(f"{url}/mcp", http_client=http) as streams:
        async with ClientSession(*streams, read_timeout_seconds=30) as mcp:
            init = await mcp.initialize()
            print(f"-- session: protocol {init.protocol_version}, server {init.server_info.name}")

            tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
            expected = {
                "list_service_accounts",
                "search_service_accounts",
                "count_service_accounts",
                "get_service_account",
                "archive_service_accounts",
            }
            check(set(tools) == expected, f"tools/list names the five tools: {sorted(tools)}")
            for name, tool in tools.items():
                check(isinstance(tool.output_schema, dict), f"{name} declares an outputSchema")
                # A single resource says what its nulls mean; every other tool, how to read `complete`.
                member = "omitted_fields" if name == "get_service_account" else "complete"
                check(member in tool.description, f"{name}'s description says how to read `{member}`")
                annotations = tool.annotations
                destructive = name == "archive_service_accounts"
                check(annotations.destructive_hint is destructive, f"{name}: destructiveHint {destructive}")
                check(annotations.read_only_hint is (not destructive), f"{name}: readOnlyHint {not destructive}")

            # A traversal by cursor; the SDK checks each structuredContent against the
            # tool's outputSchema as it reads it.
            pages = await traverse(mcp, owner="none")
            ids = [item["id"] for page in pages for item in page["items"]]
            check(len(pages) > 2, f"the inventory takes several pages ({len(pages)})")
            check(len(ids) == len(set(ids)), f"no account twice in {len(ids)}")
            count = envelope(await mcp.call_tool("count_service_accounts", {"owner": "none"}), "count_service_accounts")
            check(count["complete"] and count["relation"] == "exact", "the count is exact")
            check(count["count"] == len(ids), f"the traversal holds exactly the count ({count['count']})")
            evidence = pages[-1]["evidence"]
            check(isinstance(evidence, str) and evidence, "the last page of a complete traversal carries evidence")
            check(all(page["evidence"] is None for page in pages[:-1]), "no other page carries evidence")

            one = envelope(await mcp.call_tool("get_service_account", {"id": ids[0]}), "get_service_account")
            check(one["id"] == ids[0], "get_service_account reads the account")

            bad = await mcp.call_tool("list_service_accounts", {"owner": "none", "cursor": "not-a-cursor"})
            refusal(bad, "a forged cursor", "INVALID_CURSOR")
            foreign = await mcp.call_tool("list_service_accounts", {"owner": "alice", "cursor": pages[0]["next_cursor"]})
            refusal(foreign, "a cursor of other filters", "CURSOR_QUERY_MISMATCH")

            unproven = await mcp.call_tool("archive_service_accounts", {"ids": ids[:2]})
            text = refusal(unproven, "an archive without evidence", "EVIDENCE_REQUIRED")
            check("NOT ARCHIVED" in text and "Missing:" in text, "the refusal carries the approval request")
            again = envelope(await mcp.call_tool("count_service_accounts", {"owner": "none"}), "count_service_accounts")
            check(again["count"] == len(ids), "the refused archive changed nothing")

            try:
                await mcp.call_tool("drop_all_accounts", {})
                check(False, "an unknown tool is a JSON-RPC error")
            except MCPError as error:
                check(error.error.code in (-32601, -32602), f"an unknown tool is a JSON-RPC error ({error.error.code})")
            # Since 2025-11-25 (SEP-1303) a tool error, which reaches the model.
            malformed = await mcp.call_tool("get_service_account", {"id": 7})
            refusal(malformed, "a malformed argument", "INVALID_ARGUMENTS")

            archived = envelope(
                await mcp.call_tool("archive_service_accounts", {"ids": ids[:2], "evidence": evidence}),
                "archive_service_accounts",
            )
            check(sorted(archived["archived"]) == sorted(ids[:2]), "the archive with complete evidence archives")
            after = envelope(await mcp.call_tool("count_service_accounts", {"owner": "none"}), "count_service_accounts")
            check(after["count"] == len(ids) - 2, "the archived accounts are gone from the inventory")


async def north_without_a_session(url):
    """The current protocol (`server/discover`, no session), as `north`, which cannot read `south`."""
    async with client("north") as http, streamable_http_client(f"{url}/mcp", http_client=http) as streams:
        async with ClientSession(*streams, read_timeout_seconds=30) as mcp:
            found = await mcp.discover()
            print(f"-- no session: protocol versions {found.supported_versions}")
            await mcp.list_tools()
            result = await mcp.call_tool("list_service_accounts", {"owner": "none", "tenant": "south"})
            page = envelope(result, "list_service_accounts")
            codes = [reason["code"] for reason in page["incomplete_reasons"]]
            check(page["items"] == [] and page["complete"] is False, "north's view of south is incomplete and empty")
            check("VISIBILITY_RESTRICTED" in codes, f"it says why: {codes}")
            verdict = result.content[0].text.partition("\n")[0]
            check("VISIBILITY_RESTRICTED" in verdict, "the verdict line names the reason")
            strict = await mcp.call_tool(
                "list_service_accounts", {"owner": "none", "tenant": "south", "require_complete": True}
            )
            refusal(strict, "a strict list north cannot read whole", "COMPLETE_RESULT_UNAVAILABLE")


async def unknown_credential(url):
    """A credential the service does not know is refused before any tool runs: the SDK reports
    the HTTP refusal as a JSON-RPC error (it has no status to show), and the same request sent
    by hand is answered 401 with a problem."""
    refused = None
    try:
        async with client("mallory") as http, streamable_http_client(f"{url}/mcp", http_client=http) as streams:
            async with ClientSession(*streams, read_timeout_seconds=10) as mcp:
                await mcp.initialize()
    except Exception as error:  # the SDK raises the error inside exception groups
        refused = [e for e in leaves(error) if isinstance(e, MCPError)]
    check(refused, "the SDK cannot open a session with an unknown credential")
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    async with client("mallory") as http:
        answer = await http.post(
            f"{url}/mcp", json=initialize, headers={"Accept": "application/json, text/event-stream"}
        )
    check(answer.status_code == 401, f"the same initialize by hand is answered 401 ({answer.status_code})")
    check(answer.headers.get("content-type", "").startswith("application/problem+json"), "with a problem")


def leaves(error):
    """The exceptions an exception group holds, however deep; or the exception itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def main(url):
    await admin_over_a_session(url)
    await north_without_a_session(url)
    await unknown_credential(url)
    print("mcp interop: every check passed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        asyncio.run(main(sys.argv[1].rstrip("/")))
    except (AssertionError, BaseExceptionGroup) as error:
        # A check that fails inside the SDK's task groups comes out wrapped in exception groups.
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        if not isinstance(error, AssertionError):
            raise
        print(f"FAILED: {error}", file=sys.stderr)
        sys.exit(1)
