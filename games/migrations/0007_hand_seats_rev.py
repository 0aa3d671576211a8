from django.db import migrations, models

# Every change of who sits at a seat, whether the bot plays it, 托管 or the shown hand, made
# while the table's hand is in progress, bumps that hand's seats_rev in the same transaction.
# A trigger, not the services: no path that changes a seat (a service, the admin, a shell) can
# forget it, and the optimistic move (games/services/optimistic.py) relies on it to notice
# seats that changed since it last read them. The trigger's UPDATE takes the hand's row lock;
# every service that changes a seat holds the table's lock first (Table → Hand → Seats), so
# it adds no lock order that could deadlock.
BUMP = """
CREATE FUNCTION games_seat_bumps_hand() RETURNS trigger AS $$
BEGIN
    UPDATE games_hand SET seats_rev = seats_rev + 1
    WHERE status = 'playing'
      AND match_id IN (SELECT id FROM games_match WHERE table_id = NEW.table_id);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER games_seat_bumps_hand
AFTER UPDATE ON games_seat
FOR EACH ROW
WHEN (
    OLD.user_id IS DISTINCT FROM NEW.user_id
    OR OLD.bot IS DISTINCT FROM NEW.bot
    OR OLD.autopilot IS DISTINCT FROM NEW.autopilot
    OR OLD.show_hand_to_spectators IS DISTINCT FROM NEW.show_hand_to_spectators
)
EXECUTE FUNCTION games_seat_bumps_hand();
"""

UNBUMP = """
DROP TRIGGER IF EXISTS games_seat_bumps_hand ON games_seat;
DROP FUNCTION IF EXISTS games_seat_bumps_hand();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0006_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="hand",
            name="seats_rev",
            field=models.PositiveIntegerField(default=0, verbose_name="seat changes"),
        ),
        migrations.RunSQL(BUMP, UNBUMP),
    ]
