"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-22 03:39:24.126849
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("body", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_document")),
        sa.UniqueConstraint("external_id", name=op.f("uq_document_external_id")),
    )
    op.create_table(
        "query",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_query")),
        sa.UniqueConstraint("external_id", name=op.f("uq_query_external_id")),
    )
    op.create_table(
        "rater",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rater")),
        sa.UniqueConstraint("name", name=op.f("uq_rater_name")),
    )
    op.create_table(
        "run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run")),
        sa.UniqueConstraint("name", name=op.f("uq_run_name")),
    )
    op.create_table(
        "setting",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_setting")),
    )
    op.create_table(
        "assignment",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_assignment_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_assignment_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint("rater_id", "query_id", name=op.f("pk_assignment")),
    )
    op.create_table(
        "judgment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=True),
        sa.Column("skipped", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "(skipped AND grade IS NULL) OR (NOT skipped AND grade IS NOT NULL)",
            name=op.f("ck_judgment_grade_or_skipped"),
        ),
        sa.CheckConstraint(
            "duration_ms IS NULL OR duration_ms >= 0", name=op.f("ck_judgment_duration_positive")
        ),
        sa.CheckConstraint(
            "grade IS NULL OR (grade >= 0 AND grade <= 5)", name=op.f("ck_judgment_grade_range")
        ),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_judgment_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_judgment_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_judgment_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgment")),
        sa.UniqueConstraint(
            "query_id",
            "document_id",
            "rater_id",
            name=op.f("uq_judgment_query_id_document_id_rater_id"),
        ),
    )
    op.create_table(
        "judgment_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("old_grade", sa.Integer(), nullable=True),
        sa.Column("old_skipped", sa.Boolean(), nullable=True),
        sa.Column("old_note", sa.Text(), nullable=True),
        sa.Column("new_grade", sa.Integer(), nullable=True),
        sa.Column("new_skipped", sa.Boolean(), nullable=True),
        sa.Column("new_note", sa.Text(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("reverts", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "action IN ('set', 'skip', 'clear', 'note', 'undo', 'redo', 'import', 'merge')",
            name=op.f("ck_judgment_event_action_known"),
        ),
        sa.CheckConstraint(
            "new_grade IS NULL OR (new_grade >= 0 AND new_grade <= 5)",
            name=op.f("ck_judgment_event_new_grade_range"),
        ),
        sa.CheckConstraint(
            "old_grade IS NULL OR (old_grade >= 0 AND old_grade <= 5)",
            name=op.f("ck_judgment_event_old_grade_range"),
        ),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_judgment_event_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_judgment_event_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_judgment_event_rater_id_rater")
        ),
        sa.ForeignKeyConstraint(
            ["reverts"],
            ["judgment_event.id"],
            name=op.f("fk_judgment_event_reverts_judgment_event"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgment_event")),
    )
    with op.batch_alter_table("judgment_event", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_judgment_event_rater_id_id"), ["rater_id", "id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_judgment_event_reverts"),
            ["reverts"],
            unique=False,
            sqlite_where=sa.text("reverts IS NOT NULL"),
            postgresql_where=sa.text("reverts IS NOT NULL"),
        )
    op.create_table(
        "result",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
        sa.CheckConstraint("rank >= 1", name=op.f("ck_result_rank_positive")),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_result_document_id_document")
        ),
        sa.ForeignKeyConstraint(["query_id"], ["query.id"], name=op.f("fk_result_query_id_query")),
        sa.ForeignKeyConstraint(
            ["run_id"], ["run.id"], name=op.f("fk_result_run_id_run"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_result")),
        sa.UniqueConstraint(
            "run_id", "query_id", "document_id", name=op.f("uq_result_run_id_query_id_document_id")
        ),
        sa.UniqueConstraint(
            "run_id", "query_id", "rank", name=op.f("uq_result_run_id_query_id_rank")
        ),
    )
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_result_query_id"), ["query_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_result_query_id"))
    op.drop_table("result")
    with op.batch_alter_table("judgment_event", schema=None) as batch_op:
        batch_op.drop_index(
            batch_op.f("ix_judgment_event_reverts"),
            sqlite_where=sa.text("reverts IS NOT NULL"),
            postgresql_where=sa.text("reverts IS NOT NULL"),
        )
        batch_op.drop_index(batch_op.f("ix_judgment_event_rater_id_id"))
    op.drop_table("judgment_event")
    op.drop_table("judgment")
    op.drop_table("assignment")
    op.drop_table("setting")
    op.drop_table("run")
    op.drop_table("rater")
    op.drop_table("query")
    op.drop_table("document")
