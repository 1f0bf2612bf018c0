"""rater quality control

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 03:10:00.000000

Hidden repeats (a rater's second judgment of a pair, for self-agreement) and gold items (pairs
with a grade a lead knows) get their own tables: neither is anyone's judgment, so nothing that
reads ``judgment`` (evaluation, agreement, exports) can count them. History events gain a
``repeat`` flag marking the changes of a repeat; every existing event is a judgment's.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _grade_check(column: str) -> str:
    return f"{column} IS NULL OR ({column} >= 0 AND {column} <= 5)"


def upgrade() -> None:
    with op.batch_alter_table("judgment_event") as batch:
        batch.add_column(
            sa.Column("repeat", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
    op.create_table(
        "repeat_judgment",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("scheduled_at", sa.DateTime(), nullable=False),
        sa.Column("first_grade", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=True),
        sa.Column("skipped", sa.Boolean(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("judged_at", sa.DateTime(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            _grade_check("first_grade"), name=op.f("ck_repeat_judgment_first_grade_range")
        ),
        sa.CheckConstraint(_grade_check("grade"), name=op.f("ck_repeat_judgment_grade_range")),
        sa.CheckConstraint(
            "NOT (skipped AND grade IS NOT NULL)", name=op.f("ck_repeat_judgment_grade_or_skipped")
        ),
        sa.CheckConstraint(
            "duration_ms IS NULL OR duration_ms >= 0",
            name=op.f("ck_repeat_judgment_duration_positive"),
        ),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_repeat_judgment_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_repeat_judgment_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_repeat_judgment_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint(
            "rater_id", "query_id", "document_id", name=op.f("pk_repeat_judgment")
        ),
    )
    op.create_table(
        "gold_item",
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("marked_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(_grade_check("grade"), name=op.f("ck_gold_item_grade_range")),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_gold_item_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_gold_item_query_id_query")
        ),
        sa.PrimaryKeyConstraint("query_id", "document_id", name=op.f("pk_gold_item")),
    )


def downgrade() -> None:
    # a repeat's history goes with the repeat: left behind, its events would read as
    # changes of the rater's judgment
    op.execute("DELETE FROM judgment_event WHERE repeat")
    op.drop_table("gold_item")
    op.drop_table("repeat_judgment")
    with op.batch_alter_table("judgment_event") as batch:
        batch.drop_column("repeat")
