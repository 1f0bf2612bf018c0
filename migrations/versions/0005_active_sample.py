"""active sample

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 10:00:00.000000

The active sample drawn for an automatic judge (``judge-app sample``): each query's predicted
residual scale and its sequential Poisson key. With the pool's query order ``active``, raters
take their queries in ascending key, and the evaluation weights the labelled queries by the
inverse of their inclusion probabilities. No rater ever reads this table.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "active_sample",
        sa.Column("query_id", sa.Integer(), nullable=False),
        sa.Column("judge_id", sa.Integer(), nullable=False),
        sa.Column("scale", sa.Float(), nullable=False),
        sa.Column("key", sa.Float(), nullable=False),
        sa.Column("drawn_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("scale > 0", name=op.f("ck_active_sample_scale_positive")),
        sa.ForeignKeyConstraint(
            ["judge_id"], ["rater.id"], name=op.f("fk_active_sample_judge_id_rater")
        ),
        sa.ForeignKeyConstraint(
            ["query_id"], ["query.id"], name=op.f("fk_active_sample_query_id_query")
        ),
        sa.PrimaryKeyConstraint("query_id", name=op.f("pk_active_sample")),
    )


def downgrade() -> None:
    op.drop_table("active_sample")
