from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ladder", "0005_admin_words")]

    operations = [
        migrations.AlterField(
            model_name="ledgerentry",
            name="kind",
            field=models.CharField(
                choices=[
                    ("grant", "sign-up grant"),
                    ("relief", "daily relief grant"),
                    ("table_points", "hand result"),
                    ("bonus", "level bonus"),
                    ("escape_compensation", "escape compensation"),
                    ("escape_penalty", "escape penalty"),
                    ("fee", "table fee"),
                    ("service_fee", "service fee"),
                    ("bot_seat", "bot seat"),
                    ("waived", "waived"),
                    ("shortfall", "shortfall"),
                    ("title_points", "title points"),
                    ("admin_adjust", "adjustment"),
                    ("title_adjust", "title adjustment"),
                    ("no_show", "quick-match no-show"),
                ],
                max_length=24,
                verbose_name="kind",
            ),
        ),
        migrations.RemoveConstraint(model_name="ledgerentry", name="ledger_hand_kinds_have_hand"),
        migrations.AddConstraint(
            model_name="ledgerentry",
            constraint=models.CheckConstraint(
                condition=models.Q(("hand__isnull", False))
                | models.Q(
                    ("kind__in", ["grant", "relief", "admin_adjust", "title_adjust", "no_show"])
                ),
                name="ledger_hand_kinds_have_hand",
            ),
        ),
        migrations.AddConstraint(
            model_name="ledgerentry",
            constraint=models.CheckConstraint(
                condition=~models.Q(("kind", "no_show"))
                | models.Q(("amount__lt", 0), ("hand__isnull", True), ("user__isnull", False)),
                name="ledger_no_show_is_a_charge",
            ),
        ),
    ]
