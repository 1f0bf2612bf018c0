"""team logins

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27 10:00:00.000000

On a team database (PostgreSQL, after ``judge-app team init``) each rater may be bound to the
login role they connect as: the database itself then lets that login see and change only that
rater's rows (``judge_app.store.team``). NULL: no login bound, as on every earlier database.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # in place on SQLite too: copying the table others refer to would break their keys
    with op.batch_alter_table("rater", recreate="never") as batch:
        batch.add_column(sa.Column("login", sa.String(63), nullable=True))
    op.create_index(op.f("ix_rater_login"), "rater", ["login"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_rater_login"), table_name="rater")
    with op.batch_alter_table("rater", recreate="never") as batch:
        batch.drop_column("login")
