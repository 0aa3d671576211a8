from channels.generic.websocket import AsyncJsonWebsocketConsumer


class EchoConsumer(AsyncJsonWebsocketConsumer):
    """Sends every JSON message straight back: the floor of the socket stack in benchmarks."""

    async def receive_json(self, content: object, **kwargs: object) -> None:
        await self.send_json(content)
