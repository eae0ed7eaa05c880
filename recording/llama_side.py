"""The recording's helper inside the llama.cpp venv: a model file's metadata, and prompts.

``record_model.py`` runs in the workbench's venv; ``llama-cpp-python`` lives in its own
(``.venv-llama``, built by ``make record-model``), so what needs it runs here, as a child:

* ``python llama_side.py metadata FILE`` prints the model file's own metadata as JSON
  (name, licence, quantisation, size, architecture, chat template, the server's version);
* ``python llama_side.py render FILE FORMAT`` reads Chat Completions request bodies, one
  JSON object a line, and answers each with ``{"prompt": TEXT}``: the text the server
  gives the model for that request under ``FORMAT`` (``gguf``, the file's own template, or
  a llama-cpp-python chat format such as ``chatml-function-calling``), or ``{"error"}``.

Only the tokenizer is loaded (``vocab_only``): no weights, no generation.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: general.file_type values (llama.cpp's LLAMA_FTYPE) of the files one is likely to meet.
FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
              10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S",
              15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 32: "BF16"}


def load(path: str) -> Any:
    import llama_cpp

    return llama_cpp.Llama(path, vocab_only=True, verbose=False)


def metadata(path: str) -> dict[str, Any]:
    import llama_cpp

    meta = load(path).metadata
    file_type = meta.get("general.file_type")
    return {
        "name": meta.get("general.name"),
        "licence": meta.get("general.license"),
        "quantisation": FILE_TYPES.get(int(file_type), f"file_type {file_type}")
        if file_type is not None else None,
        "size_label": meta.get("general.size_label"),
        "architecture": meta.get("general.architecture"),
        "chat_template": meta.get("tokenizer.chat_template"),
        "server": llama_cpp.__version__,
    }


class _Captured(Exception):
    def __init__(self, prompt: str):
        self.prompt = prompt


class _Capture:
    """Stands in for a Llama inside a chat handler: keeps the prompt it is asked to
    complete and stops there (the handler builds the prompt, then asks for text)."""

    def __init__(self, llama: Any):
        self._llama = llama

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, prompt: Any = None, **_: Any) -> Any:
        if not isinstance(prompt, str):
            prompt = self._llama.detokenize(prompt).decode("utf-8", "replace")
        raise _Captured(prompt)


def renderer(path: str, fmt: str) -> Any:
    from llama_cpp import llama_chat_format as chat

    llama = load(path)
    if fmt == "gguf":
        meta = llama.metadata
        eos = llama._model.token_get_text(int(meta["tokenizer.ggml.eos_token_id"]))
        bos_id = meta.get("tokenizer.ggml.bos_token_id")
        bos = llama._model.token_get_text(int(bos_id)) if bos_id is not None else ""
        formatter = chat.Jinja2ChatFormatter(meta["tokenizer.chat_template"], eos, bos)

        def render(body: dict[str, Any]) -> str:
            return formatter(messages=body["messages"], tools=body.get("tools"),
                             tool_choice=body.get("tool_choice")).prompt
        return render
    handler = chat.get_chat_completion_handler(fmt)
    capture = _Capture(llama)

    def render_handler(body: dict[str, Any]) -> str:
        try:
            handler(llama=capture, messages=body["messages"], tools=body.get("tools"),
                    tool_choice=body.get("tool_choice"))
        except _Captured as got:
            return got.prompt
        raise RuntimeError(f"the {fmt} handler asked for no completion")
    return render_handler


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "metadata":
        print(json.dumps(metadata(argv[1])))
        return 0
    if len(argv) == 3 and argv[0] == "render":
        render = renderer(argv[1], argv[2])
        for line in sys.stdin:
            try:
                answer: dict[str, Any] = {"prompt": render(json.loads(line))}
            except Exception as exc:  # noqa: BLE001 (the parent reports it)
                answer = {"error": f"{type(exc).__name__}: {exc}"}
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
