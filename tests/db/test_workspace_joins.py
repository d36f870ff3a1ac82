"""No statement joins two workspaces (issue 16, item 5): wherever a statement puts two workspace
tables side by side (a JOIN, a comma in FROM, UPDATE ... FROM, DELETE ... USING), the second
is tied to the first by workspace_id, or pinned to the transaction's workspace. So each join
stays on one workspace's shard when the schema is distributed by workspace. Every named query
of db/queries/, every SQL and PL/pgSQL function and every view of the migrated database is
read, with PostgreSQL's own parser (pglast). A subquery is read as a statement of its own:
how it is tied to the statement around it (correlated, or a derived table) is not checked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pglast import ast, enums, parse_plpgsql, parse_sql
from pglast.visitors import Visitor

QUERIES = Path(__file__).resolve().parents[2] / "db" / "queries"
PINNING_FUNCTIONS = {"app_workspace_id"}
STATEMENT = re.compile(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b", re.IGNORECASE)

WORKSPACE_TABLES_SQL = """
SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
   AND EXISTS (SELECT 1 FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
"""
# The app's own functions (not an extension's) and views.
FUNCTIONS_SQL = """
SELECT p.proname AS name, l.lanname AS language, p.prosrc AS body,
       pg_get_functiondef(p.oid) AS definition
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_language l ON l.oid = p.prolang
 WHERE n.nspname = 'public' AND p.prokind = 'f' AND l.lanname IN ('sql', 'plpgsql')
   AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
"""
VIEWS_SQL = """
SELECT c.relname AS name, pg_get_viewdef(c.oid) AS body FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('v', 'm')
"""


def named_queries() -> Iterator[tuple[str, str]]:
    for path in sorted(QUERIES.glob("*.sql")):
        for block in re.split(r"(?m)^-- name: ", path.read_text())[1:]:
            name, body = block.split("\n", 1)
            yield f"{path.name}:{name.strip()}", body


def plpgsql_parts(definition: str) -> tuple[list[str], set[str]]:
    """The SQL a PL/pgSQL function runs, and its variables (a value each: a variable's
    workspace_id pins its statement to one workspace, as a parameter does)."""
    queries: list[str] = []
    variables: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "query" and isinstance(value, str):
                    queries.append(value)
                elif key in ("PLpgSQL_var", "PLpgSQL_rec"):
                    variables.add(value["refname"])
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(parse_plpgsql(definition))
    return queries, variables


def workspace_column_of(node: Any) -> str | None:
    """The alias of ``alias.workspace_id``, else None."""
    if isinstance(node, ast.ColumnRef):
        names = [getattr(part, "sval", None) for part in node.fields]
        if len(names) == 2 and names[1] == "workspace_id":
            return names[0]
    return None


def pins(node: Any, constants: set[str]) -> bool:
    """A value naming one workspace: a parameter, the transaction's workspace, a field of a
    function's argument, or a PL/pgSQL variable's."""
    if isinstance(node, ast.TypeCast):
        return pins(node.arg, constants)
    if isinstance(node, ast.ParamRef | ast.A_Indirection):
        return True
    if isinstance(node, ast.FuncCall):
        return node.funcname[-1].sval in PINNING_FUNCTIONS
    return workspace_column_of(node) in constants


def ties(condition: Any, constants: set[str]) -> set[tuple[str, str]]:
    """The (alias, alias) pairs a condition equates workspace_id of, and (alias, "") for an
    alias pinned to one workspace; only through AND."""
    found: set[tuple[str, str]] = set()
    if isinstance(condition, ast.BoolExpr):
        if condition.boolop == enums.BoolExprType.AND_EXPR:
            for arg in condition.args:
                found |= ties(arg, constants)
    elif isinstance(condition, ast.A_Expr) and [n.sval for n in condition.name] == ["="]:
        left, right = workspace_column_of(condition.lexpr), workspace_column_of(condition.rexpr)
        if left and pins(condition.rexpr, constants):
            found.add((left, ""))
        elif right and pins(condition.lexpr, constants):
            found.add((right, ""))
        elif left and right:
            found |= {(left, right), (right, left)}
    return found


@dataclass
class Checker:
    """Reads one statement's FROM lists against the workspace tables."""

    tables: set[str]
    constants: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def aliases(self, item: Any) -> tuple[set[str], set[str]]:
        """Every alias a FROM item brings, and those of workspace tables."""
        if isinstance(item, ast.RangeVar):
            name = item.alias.aliasname if item.alias else item.relname
            return {name}, ({name} if item.relname in self.tables else set())
        if isinstance(item, ast.JoinExpr):
            left, right = self.aliases(item.larg), self.aliases(item.rarg)
            return left[0] | right[0], left[1] | right[1]
        alias = getattr(item, "alias", None)
        return ({alias.aliasname} if alias else set()), set()

    def tied(self, alias: str, others: set[str], known: set[tuple[str, str]]) -> bool:
        return (alias, "") in known or any((alias, other) in known for other in others)

    def join(self, item: Any, where: set[tuple[str, str]]) -> None:
        if not isinstance(item, ast.JoinExpr):
            return
        self.join(item.larg, where)
        self.join(item.rarg, where)
        left_all, left_tables = self.aliases(item.larg)
        _, right_tables = self.aliases(item.rarg)
        if not (left_tables and right_tables):
            return
        using = {part.sval for part in item.usingClause or ()}
        known = where | ties(item.quals, self.constants)
        for alias in right_tables:
            if "workspace_id" not in using and not self.tied(alias, left_all, known):
                self.problems.append(f"{alias} joined to {sorted(left_tables)}")

    def from_list(self, items: list[Any], where_clause: Any) -> None:
        where = ties(where_clause, self.constants)
        for item in items:
            self.join(item, where)
        brought = [self.aliases(item) for item in items]
        if sum(1 for _, tables in brought if tables) < 2:
            return
        for i, (_, tables) in enumerate(brought):
            others = set().union(*(every for j, (every, _) in enumerate(brought) if j != i))
            for alias in tables:
                if not self.tied(alias, others, where):
                    self.problems.append(f"{alias} listed beside {sorted(others)}")


class Statements(Visitor):
    """Hands every SELECT, UPDATE and DELETE, however nested, to the checker."""

    def __init__(self, checker: Checker) -> None:
        super().__init__()
        self.checker = checker

    def visit_SelectStmt(self, ancestors: Any, node: ast.SelectStmt) -> None:
        self.checker.from_list(list(node.fromClause or ()), node.whereClause)

    def visit_UpdateStmt(self, ancestors: Any, node: ast.UpdateStmt) -> None:
        self.checker.from_list([node.relation, *(node.fromClause or ())], node.whereClause)

    def visit_DeleteStmt(self, ancestors: Any, node: ast.DeleteStmt) -> None:
        self.checker.from_list([node.relation, *(node.usingClause or ())], node.whereClause)


def problems_of(sql: str, tables: set[str], constants: frozenset[str] = frozenset()) -> list[str]:
    checker = Checker(tables, set(constants))
    for raw in parse_sql(sql):
        Statements(checker)(raw.stmt)
    return checker.problems


Statement = tuple[str, str, frozenset[str]]


async def statements(conn: asyncpg.Connection) -> list[Statement]:
    """Every statement the app sends or runs in the database: where it comes from, its SQL and
    the variables it may read."""
    found = [(where, sql, frozenset[str]()) for where, sql in named_queries()]
    for row in await conn.fetch(FUNCTIONS_SQL):
        if row["language"] == "sql":
            found.append((f"function {row['name']}", row["body"], frozenset()))
            continue
        queries, variables = plpgsql_parts(row["definition"])
        for i, sql in enumerate(queries):
            # Its expressions (`OLD.id`, `t.kind = 'agent'`) are fragments, not statements.
            if STATEMENT.match(sql):
                found.append((f"function {row['name']} #{i}", sql, frozenset(variables)))
    views = await conn.fetch(VIEWS_SQL)
    found += [(f"view {row['name']}", row["body"], frozenset()) for row in views]
    return found


async def test_no_statement_joins_two_workspaces(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        tables = {row["relname"] for row in await conn.fetch(WORKSPACE_TABLES_SQL)}
        every = await statements(conn)
    assert len(every) > 100 and {"records", "memory_pages"} <= tables
    found = [
        f"{where}: {problem}"
        for where, sql, constants in every
        for problem in problems_of(sql, tables, constants)
    ]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize(
    ("sql", "problems"),
    [
        ("SELECT 1 FROM records r JOIN objects o ON o.id = r.object_id", ["o joined to ['r']"]),
        ("SELECT 1 FROM records r, objects o WHERE o.id = r.object_id", 2),
        ("UPDATE records r SET label = 'x' FROM objects o WHERE o.id = r.object_id", 2),
        ("SELECT 1 FROM records r JOIN objects o ON o.workspace_id = r.workspace_id", []),
        ("SELECT 1 FROM records r JOIN objects o USING (workspace_id)", []),
        ("SELECT 1 FROM records r JOIN objects o ON o.workspace_id = app_workspace_id()", []),
        (
            "SELECT 1 FROM records r, objects o WHERE o.workspace_id = $1 AND r.workspace_id = $1",
            [],
        ),
        ("SELECT 1 FROM unnest($1::uuid[]) u(id) JOIN records r ON r.id = u.id", []),
    ],
)
def test_the_checker_tells_a_join_within_a_workspace(sql: str, problems: Any) -> None:
    found = problems_of(sql, {"records", "objects"})
    assert (len(found) if isinstance(problems, int) else found) == problems, found
