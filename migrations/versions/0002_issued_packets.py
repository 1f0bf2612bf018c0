"""issued packets

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 19:10:00.000000

Each rater packet the database issues is recorded: its id, its rater, when, the history
event it was made at and how far it has been merged. A merge trusts this record, never the
packet's own claims.

The ``packet.merged.<packet id>`` settings of 0001 cannot become rows: a 0001 database did not
record the packets it issued, so nothing in it says whose packet an id was or at which event
it was made (only the packet file said so, and that is what can no longer be trusted). They
are left as they are, a record of the merges done; such packets are refused from now on, and
their raters are given new ones.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "packet",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("rater_id", sa.Integer(), nullable=False),
        sa.Column("issued_at", sa.DateTime(), nullable=False),
        sa.Column("base_event", sa.Integer(), nullable=False),
        sa.Column("merged_through", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["rater_id"], ["rater.id"], name=op.f("fk_packet_rater_id_rater")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_packet")),
    )


def downgrade() -> None:
    # 0001 kept how far each packet was merged in a setting: give it back, so that a merged
    # packet is not merged again
    op.execute(
        "INSERT INTO setting (key, value) SELECT 'packet.merged.' || id, "
        "CAST(merged_through AS TEXT) FROM packet WHERE merged_through IS NOT NULL"
    )
    op.drop_table("packet")
