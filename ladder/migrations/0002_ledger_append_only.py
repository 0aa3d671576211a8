"""The ledger is append-only in the database itself: UPDATE and DELETE raise."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION ladder_ledger_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ladder_ledgerentry is append-only (% refused)', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ladder_ledger_append_only
    BEFORE UPDATE OR DELETE ON ladder_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION ladder_ledger_append_only();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS ladder_ledger_append_only ON ladder_ledgerentry;
DROP FUNCTION IF EXISTS ladder_ledger_append_only();
"""


class Migration(migrations.Migration):
    dependencies = [("ladder", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
