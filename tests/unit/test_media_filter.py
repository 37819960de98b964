from circle.application.media import MediaFilter
from circle.domain.messages import DocumentPart, ImagePart, Message, TextPart, ToolResultPart


def _with_image() -> Message:
    result = ToolResultPart(
        tool_call_id="c",
        tool_name="read_file",
        content=(TextPart(text="Image a.png"), ImagePart(media_type="image/png", data="AAAA")),
    )
    return Message(role="tool", parts=(result,))


def test_a_model_without_images_gets_a_note() -> None:
    message = _with_image()
    [out] = MediaFilter(reads_images=False, reads_pdfs=False).apply([message])
    content = out.tool_results[0].content
    assert content[0] == TextPart(text="Image a.png")
    assert isinstance(content[1], TextPart) and "does not read images" in content[1].text
    assert message.tool_results[0].content[1].type == "image"


def test_a_model_with_images_gets_the_same_objects() -> None:
    messages = [Message.user("hi"), _with_image()]
    out = MediaFilter(reads_images=True, reads_pdfs=True).apply(messages)
    assert all(a is b for a, b in zip(out, messages, strict=True))


def test_rewrites_are_reused_and_plain_messages_untouched() -> None:
    media = MediaFilter(reads_images=False, reads_pdfs=True)
    plain, with_image = Message.user("hi"), _with_image()
    first = media.apply([plain, with_image])
    second = media.apply([plain, with_image])
    assert first[0] is plain and first[1] is second[1]


def test_pdfs_follow_their_own_flag() -> None:
    pdf = Message(role="user", parts=(DocumentPart(media_type="application/pdf", data="AA", name="r.pdf"),))
    [kept] = MediaFilter(reads_images=False, reads_pdfs=True).apply([pdf])
    assert kept is pdf
    [noted] = MediaFilter(reads_images=True, reads_pdfs=False).apply([pdf])
    assert "a PDF (r.pdf)" in noted.text


class CountingFilter(MediaFilter):
    """Counts the parts it looks at."""

    looked = 0

    def _drops(self, part: object) -> bool:
        self.looked += 1
        return super()._drops(part)


def test_each_message_is_looked_at_once_across_requests() -> None:
    history = [Message.user(f"message {n}") for n in range(50)]
    media = CountingFilter(reads_images=False, reads_pdfs=False)
    media.apply(history)
    first = media.looked

    history.append(Message.user("one more"))
    media.looked = 0
    out = media.apply(history)

    assert first == 50 and media.looked == 1
    assert list(out) == history
