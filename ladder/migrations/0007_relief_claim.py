"""Where each daily relief grant was claimed from (`ReliefClaim`): the client's network address
and the site's day, to bound the grants per address per day. The grants made before have no
address (empty); the table is append-only, as the ledger is."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

APPEND_ONLY = """
CREATE FUNCTION ladder_relief_claim_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ladder_reliefclaim is append-only (% refused)', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ladder_relief_claim_append_only
    BEFORE UPDATE OR DELETE ON ladder_reliefclaim
    FOR EACH ROW EXECUTE FUNCTION ladder_relief_claim_append_only();
"""

NOT_APPEND_ONLY = """
DROP TRIGGER IF EXISTS ladder_relief_claim_append_only ON ladder_reliefclaim;
DROP FUNCTION IF EXISTS ladder_relief_claim_append_only();
"""


def claims_of_earlier_grants(apps, schema_editor):
    """One claim with no address for every relief row written before, on its site day."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ladder_reliefclaim (entry_id, address, day) "
            "SELECT id, '', (created_at AT TIME ZONE %s)::date FROM ladder_ledgerentry "
            "WHERE kind = 'relief'",
            [settings.TIME_ZONE],
        )


class Migration(migrations.Migration):
    dependencies = [("ladder", "0006_no_show")]

    operations = [
        migrations.CreateModel(
            name="ReliefClaim",
            fields=[
                (
                    "entry",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        primary_key=True,
                        related_name="relief_claim",
                        serialize=False,
                        to="ladder.ledgerentry",
                        verbose_name="ledger entry",
                    ),
                ),
                (
                    "address",
                    models.CharField(blank=True, max_length=64, verbose_name="network address"),
                ),
                ("day", models.DateField(verbose_name="day")),
            ],
            options={
                "verbose_name": "relief claim",
                "verbose_name_plural": "relief claims",
                "indexes": [
                    models.Index(fields=["address", "day"], name="relief_claim_address_day")
                ],
            },
        ),
        migrations.RunPython(claims_of_earlier_grants, migrations.RunPython.noop),
        migrations.RunSQL(APPEND_ONLY, NOT_APPEND_ONLY),
    ]
