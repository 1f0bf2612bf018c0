"""who made each change; the active order a rater may read

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 12:00:00.000000

Each history event names the database login that wrote it: on PostgreSQL the column defaults
to ``session_user`` (the login that connected, whatever role it then took), and on a team
database a rater's row-level policy refuses an event naming another (``judge_app.store.team``).
Events written before this revision keep NULL: who made them was not recorded. SQLite has no
logins: NULL there.

The view ``active_order`` gives each query of the active sample its place in the order raters
take them (ascending key): all a rater's queue needs, without the scale or the key, which a
rater's login on a team database may not read.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ACTIVE_ORDER = (
    "CREATE VIEW active_order AS "
    "SELECT query_id, rank() OVER (ORDER BY key) AS place FROM active_sample"
)


def upgrade() -> None:
    # in place on SQLite too: copying the table others refer to would break their keys
    with op.batch_alter_table("judgment_event", recreate="never") as batch:
        batch.add_column(sa.Column("login", sa.String(63), nullable=True))
    if op.get_context().dialect.name == "postgresql":
        # set apart from the ADD COLUMN: there it would name the migrating login on every old row
        op.alter_column("judgment_event", "login", server_default=sa.text("session_user"))
    op.execute(ACTIVE_ORDER)


def downgrade() -> None:
    op.execute("DROP VIEW active_order")
    with op.batch_alter_table("judgment_event", recreate="never") as batch:
        batch.drop_column("login")
