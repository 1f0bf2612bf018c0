"""automatic judges

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 09:00:00.000000

A rater gains a kind: human (every existing rater) or automatic. An automatic judge's
settings are in ``automatic_judge`` and its grades in ``auto_judgment``, never in
``judgment``: nothing that reads judgments (evaluation, agreement, exports, the judging
screen) can count or show them.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rater", recreate="never") as batch:
        batch.add_column(sa.Column("kind", sa.String(16), server_default="human", nullable=False))
    op.create_table(
        "automatic_judge",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("prompt_version", sa.String(64), nullable=True),
        sa.Column("template", sa.Text(), nullable=True),
        sa.Column("endpoint", sa.Text(), nullable=True),
        sa.Column("details", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(
            "method IN ('llm', 'local')", name=op.f("ck_automatic_judge_method_known")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_automatic_judge_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint("rater_id", name=op.f("pk_automatic_judge")),
    )
    op.create_table(
        "auto_judgment",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Float(), nullable=True),
        sa.Column("failure", sa.Text(), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("prompt_sha", sa.String(64), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=True),
        sa.Column("completion_tokens", sa.Integer(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(
            "grade IS NULL OR (grade >= 0 AND grade <= 5)",
            name=op.f("ck_auto_judgment_grade_range"),
        ),
        sa.CheckConstraint(
            "(grade IS NULL) <> (failure IS NULL)", name=op.f("ck_auto_judgment_grade_or_failure")
        ),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_auto_judgment_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_auto_judgment_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_auto_judgment_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint(
            "rater_id", "query_id", "document_id", name=op.f("pk_auto_judgment")
        ),
    )


def downgrade() -> None:
    op.drop_table("auto_judgment")
    op.drop_table("automatic_judge")
    # SQLite drops a column in place (3.35 on), without copying the table others refer to
    with op.batch_alter_table("rater", recreate="never") as batch:
        batch.drop_column("kind")
