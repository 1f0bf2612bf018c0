"""preference judgments

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28 09:00:00.000000

A rater's preference between two documents for a query (issue 36) is kept in ``preference``,
one row per rater, query and unordered pair (stored with the smaller document id as ``a``),
and every change of it in ``preference_event``, as ``judgment_event`` keeps the judgments'.
Nothing that existed before changes.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

CHOICES = "('a', 'b', 'equal', 'neither', 'skipped')"


def _pair_keys(table: str) -> list[sa.ForeignKeyConstraint]:
    """The foreign keys of a preference table's rater, query and two documents."""
    return [
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f(f"fk_{table}_rater_id_rater")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f(f"fk_{table}_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["document_a_id"], ["document.id"], name=op.f(f"fk_{table}_document_a_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["document_b_id"], ["document.id"], name=op.f(f"fk_{table}_document_b_id_document")
        ),
    ]


def _pair_columns() -> list[sa.Column]:
    return [
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_a_id", sa.Integer(), nullable=False),
        sa.Column("document_b_id", sa.Integer(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "preference",
        *_pair_columns(),
        sa.Column("choice", sa.String(16), nullable=False),
        sa.Column("left_document_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "document_a_id < document_b_id", name=op.f("ck_preference_canonical_pair")
        ),
        sa.CheckConstraint(f"choice IN {CHOICES}", name=op.f("ck_preference_choice_known")),
        sa.CheckConstraint(
            "left_document_id IS NULL OR left_document_id IN (document_a_id, document_b_id)",
            name=op.f("ck_preference_left_of_pair"),
        ),
        sa.CheckConstraint(
            "duration_ms IS NULL OR duration_ms >= 0", name=op.f("ck_preference_duration_positive")
        ),
        *_pair_keys("preference"),
        sa.ForeignKeyConstraint(
            ["left_document_id"],
            ["document.id"],
            name=op.f("fk_preference_left_document_id_document"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_preference")),
        sa.UniqueConstraint(
            "query_id",
            "document_a_id",
            "document_b_id",
            "rater_id",
            name=op.f("uq_preference_query_id_document_a_id_document_b_id_rater_id"),
        ),
    )
    # a new table: on PostgreSQL its login defaults to the login that writes the event at once
    postgresql = op.get_context().dialect.name == "postgresql"
    login_default = sa.text("session_user") if postgresql else None
    op.create_table(
        "preference_event",
        *_pair_columns(),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("old_choice", sa.String(16), nullable=True),
        sa.Column("old_note", sa.Text(), nullable=True),
        sa.Column("new_choice", sa.String(16), nullable=True),
        sa.Column("new_note", sa.Text(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("reverts", sa.Integer(), nullable=True),
        sa.Column("login", sa.String(63), server_default=login_default, nullable=True),
        sa.CheckConstraint(
            f"old_choice IS NULL OR old_choice IN {CHOICES}",
            name=op.f("ck_preference_event_old_choice_known"),
        ),
        sa.CheckConstraint(
            f"new_choice IS NULL OR new_choice IN {CHOICES}",
            name=op.f("ck_preference_event_new_choice_known"),
        ),
        sa.CheckConstraint(
            "action IN ('set', 'clear', 'note', 'undo', 'redo', 'import', 'merge')",
            name=op.f("ck_preference_event_action_known"),
        ),
        *_pair_keys("preference_event"),
        sa.ForeignKeyConstraint(
            ["reverts"],
            ["preference_event.id"],
            name=op.f("fk_preference_event_reverts_preference_event"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_preference_event")),
    )
    op.create_index(op.f("ix_preference_event_rater_id_id"), "preference_event", ["rater_id", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_preference_event_rater_id_id"), table_name="preference_event")
    op.drop_table("preference_event")
    op.drop_table("preference")
