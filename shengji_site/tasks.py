from celery import shared_task


@shared_task(ignore_result=False)
def echo(value: str) -> str:
    """Returns its argument: proves a worker is consuming the queue and the result store works."""
    return value
