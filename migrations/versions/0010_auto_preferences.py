"""automatic judges' preferences

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28 15:00:00.000000

An automatic judge's preference between two documents for a query (issue 36: an LLM asked
which of the two better answers it, in both orders) is kept in ``auto_preference``, one row
per judge, query and unordered pair in the canonical order of ``preference``, apart from the
raters' preferences. Nothing that existed before changes.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _known(column: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(
        f"{column} IS NULL OR {column} IN ('a', 'b', 'equal', 'neither')",
        name=op.f(f"ck_auto_preference_{column}_known"),
    )


def upgrade() -> None:
    op.create_table(
        "auto_preference",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_a_id", sa.Integer(), nullable=False),
        sa.Column("document_b_id", sa.Integer(), nullable=False),
        sa.Column("choice", sa.String(16), nullable=True),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("choice_ab", sa.String(16), nullable=True),
        sa.Column("choice_ba", sa.String(16), nullable=True),
        sa.Column("answer_ab", sa.Text(), nullable=True),
        sa.Column("answer_ba", sa.Text(), nullable=True),
        sa.Column("prompt_sha", sa.String(64), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(
            "document_a_id < document_b_id", name=op.f("ck_auto_preference_canonical_pair")
        ),
        _known("choice"),
        _known("choice_ab"),
        _known("choice_ba"),
        sa.CheckConstraint(
            "(choice IS NULL) <> (failure IS NULL)",
            name=op.f("ck_auto_preference_choice_or_failure"),
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_auto_preference_rater_id_rater")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_auto_preference_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["document_a_id"],
            ["document.id"],
            name=op.f("fk_auto_preference_document_a_id_document"),
        ),
        sa.ForeignKeyConstraint(
            ["document_b_id"],
            ["document.id"],
            name=op.f("fk_auto_preference_document_b_id_document"),
        ),
        sa.PrimaryKeyConstraint(
            "rater_id",
            "query_id",
            "document_a_id",
            "document_b_id",
            name=op.f("pk_auto_preference"),
        ),
    )


def downgrade() -> None:
    op.drop_table("auto_preference")
