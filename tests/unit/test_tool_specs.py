"""The runtime's tools carry specs kept by a SpecCache, made and saved when it has none."""

from __future__ import annotations

from dataclasses import replace

from circle._testing.spec_cache import InMemorySpecCache
from circle.application.tool_specs import with_kept_specs
from circle.application.tools import builtin_tools


async def test_a_miss_makes_every_builtin_spec_and_saves_them() -> None:
    cache = InMemorySpecCache()
    pool = builtin_tools()

    tools = await with_kept_specs(pool, cache)

    assert cache.saves == 1 and cache.specs is not None
    assert {spec.name for spec in cache.specs} == set(builtin_tools())
    assert [tool.spec() for tool in tools.values()] == [tool.spec() for tool in pool.values()]


async def test_kept_specs_are_used_as_they_are() -> None:
    made = [tool.spec() for tool in builtin_tools().values()]
    cache = InMemorySpecCache([replace(spec, description=f"kept: {spec.description}") for spec in made])

    tools = await with_kept_specs({"ls": builtin_tools()["ls"]}, cache)

    assert tools["ls"].spec().description.startswith("kept: ")
    assert cache.saves == 0


async def test_a_cache_missing_a_tool_is_made_again_whole() -> None:
    made = [tool.spec() for tool in builtin_tools().values() if tool.name != "grep"]
    cache = InMemorySpecCache(made)

    tools = await with_kept_specs(builtin_tools(), cache)

    assert cache.saves == 1 and cache.specs is not None and len(cache.specs) == len(builtin_tools())
    assert tools["grep"].spec() == builtin_tools()["grep"].spec()


OFF_THE_LOOP = """
import asyncio, sys, threading

on_main = []


class Watch:
    def find_spec(self, name, path=None, target=None):
        main = threading.current_thread() is threading.main_thread()
        if name.startswith("circle.application.tools.") and main:
            on_main.append(name)
        return None


from circle._testing.spec_cache import InMemorySpecCache
from circle.application.tool_specs import with_kept_specs
from circle.application.tools import builtin_tools

sys.meta_path.insert(0, Watch())
tools = asyncio.run(with_kept_specs(builtin_tools(), InMemorySpecCache()))
loaded = "circle.application.tools.shell" in sys.modules
print(loaded, " ".join(on_main) or "-")
"""


def test_a_miss_imports_the_tools_off_the_event_loop() -> None:
    """Made on the loop, the specs imported every tool's module there: 139 ms in one step that held
    the interface's keys on a first start."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", OFF_THE_LOOP], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "-"]


INVOKED = """
import asyncio, sys, threading
from circle.application.tools import LazyTool

where = []


class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "circle.application.tools.todos":
            where.append(threading.current_thread() is threading.main_thread())
        return None


sys.meta_path.insert(0, Watch())
tool = LazyTool("write_todos", "todos:WRITE_TODOS_TOOL")


async def main():
    try:
        await tool.invoke({}, None)
    except Exception:
        pass  # no context: only where its module was imported matters here


asyncio.run(main())
print(where)
"""


def test_a_lazy_tools_first_call_imports_it_off_the_event_loop() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", INVOKED], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[False]"
