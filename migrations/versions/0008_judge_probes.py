"""judge probes and ensembles

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27 17:00:00.000000

An LLM judge's answers to probes (a pair asked again with instructions injected into the
document, the query's words stuffed into it, or the prompt worded otherwise) are kept in
``auto_probe``, apart from its grades: calibration alone reads them. A judge may now be an
``ensemble`` of others, its grades combined from theirs.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

OLD_METHODS = "method IN ('llm', 'local')"
NEW_METHODS = "method IN ('llm', 'local', 'ensemble')"


def _methods(check: str) -> None:
    # no table refers to automatic_judge: SQLite may copy it to change the check
    with op.batch_alter_table("automatic_judge") as batch:
        batch.drop_constraint(op.f("ck_automatic_judge_method_known"), type_="check")
        batch.create_check_constraint(op.f("ck_automatic_judge_method_known"), check)


def upgrade() -> None:
    _methods(NEW_METHODS)
    op.create_table(
        "auto_probe",
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("probe", sa.String(16), nullable=False),
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
            "grade IS NULL OR (grade >= 0 AND grade <= 5)", name=op.f("ck_auto_probe_grade_range")
        ),
        sa.CheckConstraint(
            "(grade IS NULL) <> (failure IS NULL)", name=op.f("ck_auto_probe_grade_or_failure")
        ),
        sa.ForeignKeyConstraint(
            ["document_id"], ["document.id"], name=op.f("fk_auto_probe_document_id_document")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_auto_probe_query_id_query")
        ),
        sa.ForeignKeyConstraint(
            ["rater_id"], ["rater.id"], name=op.f("fk_auto_probe_rater_id_rater")
        ),
        sa.PrimaryKeyConstraint(
            "rater_id", "probe", "query_id", "document_id", name=op.f("pk_auto_probe")
        ),
    )


def downgrade() -> None:
    op.drop_table("auto_probe")
    # the old check knows no ensemble: ensembles go, with their grades and their raters
    ensembles = "(SELECT rater_id FROM automatic_judge WHERE method = 'ensemble')"
    op.execute(f"DELETE FROM active_sample WHERE judge_id IN {ensembles}")
    op.execute(f"DELETE FROM auto_judgment WHERE rater_id IN {ensembles}")
    op.execute("DELETE FROM automatic_judge WHERE method = 'ensemble'")
    op.execute(
        "DELETE FROM rater WHERE kind = 'automatic' "
        "AND id NOT IN (SELECT rater_id FROM automatic_judge)"
    )
    _methods(OLD_METHODS)
