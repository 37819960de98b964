"""The floor: a bare tool loop on the openai SDK (no storage, no safety), for comparison.

Usage: python bench/sdk_floor.py BASE_URL PROMPT
"""

import json
import sys
from pathlib import Path

import openai

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"file_path": {"type": "string"}},
                "required": ["file_path"],
            },
        },
    }
]


def main() -> None:
    client = openai.OpenAI(base_url=sys.argv[1], api_key="x", max_retries=0)
    messages: list[dict[str, object]] = [{"role": "user", "content": sys.argv[2]}]
    while True:
        text, calls = "", {}
        stream = client.chat.completions.create(
            model="m", messages=messages, tools=TOOLS, stream=True, stream_options={"include_usage": True}
        )
        for chunk in stream:
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for tc in choice.delta.tool_calls or []:
                    call = calls.setdefault(tc.index, {"id": tc.id, "name": "", "arguments": ""})
                    call["name"] += (tc.function.name or "") if tc.function else ""
                    call["arguments"] += (tc.function.arguments or "") if tc.function else ""
        if not calls:
            print(text)
            return
        messages.append(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"]},
                    }
                    for c in calls.values()
                ],
            }
        )
        for c in calls.values():
            path = json.loads(c["arguments"])["file_path"]
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": Path(path).read_text()})


if __name__ == "__main__":
    main()
