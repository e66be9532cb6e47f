"""Sphinx directives of the dice-env documentation: what the environment pages must keep in
step with the code is generated at build time, from the code (:mod:`env_tables`).

* ``{env-table}`` -- every registered id with its page and spaces (``:batched:``: its
  batched class);
* ``{env-summary} ID`` -- the box at the top of an env page (as on Gymnasium's pages): the
  action and observation spaces, the ``gym.make`` and ``gym.make_vec`` lines, the masks, the
  render modes and the classes;
* ``{env-actions} ID`` -- every action of the env and what it does (box names from the rules);
* ``{env-observation} ID`` -- every entry of the observation vector: index, name, size and
  meaning (options ``:observation: bonus``, the scorecard envs' bonus entries, and
  ``:num_players: N``);
* ``{env-arguments} ID`` (or ``module:Class``) -- every keyword argument with its default,
  described by the directive's body: one ``name: text`` line per argument;
* ``{run-python}`` -- runs the Python code of its body at build time (a fresh namespace) and
  shows the code, then what it printed: the example games cannot drift from the envs.

A directive whose table does not match the code (an observation part without a meaning, an
undescribed argument) fails the build with the reason.  The extension also turns the
``## Heading`` lines of the envs' docstrings (Gymnasium's docstring sections) into rubrics
for autodoc.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from env_tables import (
    actions_markdown,
    arguments_markdown,
    observation_markdown,
    run_python,
    summary_markdown,
    table_markdown,
)
from sphinx.util.docutils import SphinxDirective

# -- the directives ------------------------------------------------------------------------------

class _MarkdownDirective(SphinxDirective):
    """A directive that writes Markdown and parses it in place."""

    def markdown(self) -> list[str]:
        raise NotImplementedError

    def run(self) -> list[nodes.Node]:
        try:
            lines = self.markdown()
        except Exception as exc:  # the build fails with the reason, at the directive's line
            raise self.error(f"{self.name}: {exc}") from exc
        container = nodes.container()
        self.state.nested_parse(StringList(lines), self.content_offset, container)
        return container.children


class EnvTable(_MarkdownDirective):
    option_spec = {"batched": directives.flag}

    def markdown(self) -> list[str]:
        return table_markdown(Path(self.env.doc2path(self.env.docname)).parent,
                              batched="batched" in self.options)


class EnvSummary(_MarkdownDirective):
    required_arguments = 1

    def markdown(self) -> list[str]:
        return summary_markdown(self.arguments[0])


class EnvActions(_MarkdownDirective):
    required_arguments = 1

    def markdown(self) -> list[str]:
        return actions_markdown(self.arguments[0])


class EnvObservation(_MarkdownDirective):
    required_arguments = 1
    option_spec = {"observation": str, "num_players": int}

    def markdown(self) -> list[str]:
        return observation_markdown(self.arguments[0], self.options.get("observation", "basic"),
                                    self.options.get("num_players"))


class EnvArguments(_MarkdownDirective):
    required_arguments = 1
    has_content = True

    def markdown(self) -> list[str]:
        return arguments_markdown(self.arguments[0], list(self.content))


class RunPython(_MarkdownDirective):
    has_content = True

    def markdown(self) -> list[str]:
        code = "\n".join(self.content)
        out = run_python(code).rstrip()
        return (["```python", *self.content, "```", "", "prints:", "", "```text",
                 *out.splitlines(), "```"])


def _docstring_headings(app, what, name, obj, options, lines: list[str]) -> None:
    """``## Description`` (Gymnasium's docstring sections) -> a rubric, with blank lines."""
    out: list[str] = []
    for line in lines:
        m = re.match(r"^(\s*)## (.+)$", line)
        if m:
            out += ["", f"{m.group(1)}.. rubric:: {m.group(2)}", ""]
        else:
            out.append(line)
    lines[:] = out


def setup(app):
    app.add_directive("env-table", EnvTable)
    app.add_directive("env-summary", EnvSummary)
    app.add_directive("env-actions", EnvActions)
    app.add_directive("env-observation", EnvObservation)
    app.add_directive("env-arguments", EnvArguments)
    app.add_directive("run-python", RunPython)
    app.connect("autodoc-process-docstring", _docstring_headings)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
