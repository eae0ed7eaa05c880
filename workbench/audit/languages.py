"""Text in other languages, read at least for whom it addresses and what it asks.

The sentence reading of :mod:`~workbench.audit.text` knows English; a server can write its
directive in German, French, Spanish, Italian, Portuguese, Chinese or Japanese and the
model reads it all the same. This module does not translate: for each of those languages it
knows the few shapes an injection takes (drop your instructions, keep it from the user,
call this tool first, send the file there) and reads a text for them only when the text is
in that language (two of its function words, or a CJK character), so English text pays one
set intersection. Accents are folded first (``zurück`` and ``zuruck`` read alike), quoted
spans are mentions, and a sentence that sends what the tool itself takes (a mail tool's
``Datei``) is its own subject.

:func:`read_foreign` returns ``(rule, severity, start, end, reason)`` as
:func:`~workbench.audit.text.read_text` does.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from workbench.audit.context import ToolContext, tokenised, words_of
from workbench.audit.rules import Rule
from workbench.audit.rules import reading as R

__all__ = ["in_other_language", "read_foreign"]

# Function words of each language (ASCII after folding); two of them mark a text as that
# language. English shares few of them ("die", "de" alone never decide).
_MARKERS = frozenset({
    "und", "der", "das", "nicht", "sie", "du", "ist", "mit", "fur", "den", "dem", "ein",
    "eine", "zu", "auf", "alle", "oder", "werden", "wird", "nichts", "dieses",
    "le", "la", "les", "et", "vous", "tu", "des", "est", "une", "pour", "avec", "pas", "ne",
    "au", "cette", "cet", "ou",
    "el", "los", "las", "y", "usted", "es", "una", "para", "con", "debes", "del", "al",
    "esta", "siempre", "que",
    "il", "di", "che", "per", "non", "gli", "della", "questo", "sempre",
    "os", "com", "nao", "voce", "uma", "do", "da", "ferramenta",
    "notre", "votre", "nous", "dans", "sur", "par", "ces", "sont", "qui", "qu", "aux",
    "ensuite", "puis", "fichier", "utilisateur",
    "ich", "wir", "ihr", "sich", "auch", "nach", "bei", "von", "im", "dann", "bitte",
    "zuerst", "immer", "datei", "benutzer", "nutzer",
    "por", "su", "sus", "lo", "se", "luego", "despues", "archivo", "usuario", "herramienta",
    "sono", "nel", "poi", "utente", "strumento", "ao", "em", "seu", "sua", "depois",
})
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")

# Dropping the instructions, in each language: a verb of dropping near what is dropped.
_OVERRIDE = re.compile("|".join((
    r"\b(?:ignorier\w*|vergiss|vergessen\s+sie|missacht\w*|uberschreib\w*)\b(?:[^.;]|\.(?=\S)){0,60}?"
    r"\b(?:anweisung\w*|instruktion\w*|regeln|vorgaben|richtlinien|befehle|systemprompt\w*)",
    r"\b(?:ignore[rz]?|oublie[rz]?|ne\s+tenez\s+pas\s+compte\s+de)\s(?:[^.;]|\.(?=\S)){0,60}?"
    r"\b(?:instructions?|consignes?|regles|directives?)\b",
    r"\b(?:ignora|ignore|ignoren|olvida|olvide|omite|omita|ignori|dimentica|esqueca)\s"
    r"(?:[^.;]|\.(?=\S)){0,60}?\b(?:instrucciones|indicaciones|reglas|directrices|istruzioni|regole|"
    r"instrucoes|regras|orientacoes)\b",
    r"(?:忽略|无视|忽视|不要理会|不理会|忘记|忘掉)[^。；]{0,20}(?:指令|指示|规则|说明|提示|命令)",
    r"(?:指示|命令|ルール)[^。]{0,4}(?:を)?(?:無視|忘れ)",
)))
# Keeping it from the user.
_CONCEAL = re.compile("|".join((
    r"\b(?:sag|sage|sagen\s+sie|erzahl\w*|verrat\w*|teil\w*|erwahn\w*)\s+(?:dem|den|der)\s+"
    r"(?:benutzer\w*|nutzer\w*|anwender\w*|user)\s+(?:nichts|nicht)\b",
    r"\b(?:benutzer\w*|nutzer\w*|anwender\w*)\s+(?:nichts|nicht)\s+(?:davon\s+)?(?:sagen|"
    r"mitteilen|erzahlen|zeigen|erwahnen)\b",
    r"\bohne\s+(?:es\s+)?(?:dem|den|der)\s+(?:benutzer|nutzer|anwender)\w*\s+(?:zu\s+)?"
    r"(?:sagen|mitteilen|zeigen)",
    r"\bverschweig\w*|\bheimlich\b",
    r"\bne\s+(?:le\s+|lui\s+|leur\s+|rien\s+)?(?:dites|dis|mentionnez|mentionne|signalez|"
    r"revelez|montrez)\s+(?:rien|pas|jamais)\b(?:[^.;]|\.(?=\S)){0,30}\butilisat",
    r"\bsans\s+(?:en\s+)?(?:informer|prevenir|avertir|le\s+dire\s+a)\s+l.?\s*utilisat",
    r"\ba\s+l.insu\s+de",
    r"\bno\s+(?:se\s+)?(?:lo\s+|le\s+|les\s+)?(?:digas|diga|menciones|mencione|informes|"
    r"cuentes|cuente|reveles|avises)\b(?:[^.;]|\.(?=\S)){0,30}\busuari",
    r"\bsin\s+que\s+el\s+usuario\s+(?:lo\s+)?sepa|\bsin\s+(?:avisar|informar|decirle)\s+al\s+"
    r"usuario",
    r"\bnon\s+(?:dire|dirlo|informare|menzionare)\b(?:[^.;]|\.(?=\S)){0,30}\butente|\bsenza\s+(?:informare|"
    r"avvisare)\s+l.utente",
    r"\bnao\s+(?:diga|conte|informe|mencione)\b(?:[^.;]|\.(?=\S)){0,30}\busuario|\bsem\s+(?:informar|avisar)"
    r"\s+o\s+usuario",
    r"(?:不要|别|切勿|请勿|不得|无需)[^。，]{0,6}(?:告诉|通知|提醒|透露|告知)[^。]{0,4}(?:用户|使用者)",
    r"(?:瞒着|隐瞒)(?:用户|使用者)",
    r"(?:ユーザー|利用者)に(?:は)?(?:言わない|伝えない|知らせない|教えない|言わずに|伝えずに|知らせずに)",
)))
# Calling this tool first or always: a self-reference (this tool, before any other).
_FIRST = re.compile("|".join((
    r"\b(?:immer|stets|zuerst|zuallererst)\b(?:[^.;]|\.(?=\S)){0,40}\b(?:dieses?\s+(?:tool|werkzeug)|"
    r"diese\s+funktion)\b|\bvor\s+(?:jedem|jeder|allen)\s+anderen\s+(?:tool|werkzeug|aufruf|"
    r"funktion)",
    r"\b(?:toujours|d.abord|en\s+premier|systematiquement)\b(?:[^.;]|\.(?=\S)){0,40}\b(?:cet\s+outil|cette"
    r"\s+fonction)\b|\b(?:cet\s+outil|cette\s+fonction)\b(?:[^.;]|\.(?=\S)){0,40}\b(?:toujours|d.abord|en\s+"
    r"premier)\b|\bavant\s+(?:tout|toute|tous|chaque)\s+(?:autre\s+)?(?:outil|requete|action)",
    r"\b(?:siempre|primero|sempre|prima)\b(?:[^.;]|\.(?=\S)){0,40}\b(?:esta\s+herramienta|esta\s+funcion|"
    r"questo\s+strumento|questa\s+funzione|esta\s+ferramenta)\b|\b(?:esta\s+herramienta|questo"
    r"\s+strumento|esta\s+ferramenta)\b(?:[^.;]|\.(?=\S)){0,40}\b(?:siempre|primero|sempre|prima|primeiro)\b"
    r"|\bantes\s+(?:que|de)\s+cualquier\s+otra|\bprima\s+di\s+qualsiasi\s+altr|\bantes\s+de\s+"
    r"qualquer\s+outra",
    r"(?:总是|始终|每次|务必|必须|一定要|首先|先)[^。]{0,10}(?:调用|使用|运行)[^。]{0,4}(?:此|这个|本)(?:工具|函数)"
    r"|(?:在|于)(?:任何|其他|所有)[^。]{0,6}(?:工具|操作)(?:之前|前)",
    r"(?:必ず|常に|最初に|まず)[^。]{0,10}(?:この)?(?:ツール|関数)を?(?:呼び出|使用|実行)",
)))
# Sending something somewhere: a verb of sending near what is sent (a file, the chat, a key).
_SEND = re.compile("|".join((
    r"\b(?:sende|schicke|schick|ubermittle|ubertrage|lade|leite|kopiere|hange|fuge|senden\s+sie|"
    r"schicken\s+sie|ubermitteln\s+sie)\b(?:[^.;]|\.(?=\S)){0,60}?\b(?:datei\w*|inhalt\w*|zugangsdaten|"
    r"passw\w*|kennw\w*|schlussel\w*|token\w*|gesprach\w*|unterhaltung\w*|chatverlauf\w*|"
    r"verlauf\w*|konversation\w*|adresse\w*|telefonnummer\w*)",
    r"\b(?:envoye[rz]|envoie|transmet\w*|transfere[rz]|televerse[rz]|joigne[zr]|joins|ajoute[rz]"
    r"|copie[rz]|partage[rz])\b(?:[^.;]|\.(?=\S)){0,60}?\b(?:fichiers?|contenu|identifiants|mots?\s+de\s+passe"
    r"|cles?|jetons?|conversation|historique|adresse|numero)\b",
    r"\b(?:envia|envie|enviar|envies|manda|mande|reenvia|adjunta|sube|copia|comparte|incluye|"
    r"invia|inoltra|allega|carica|condividi|encaminhe|anexe|carregue|copie|compartilhe)\b"
    r"(?:[^.;]|\.(?=\S)){0,60}?\b(?:archivos?|ficheros?|contenido|credenciales|contrasenas?|claves?|"
    r"conversacion|historial|direccion|telefono|file|contenuto|credenziali|password|chiav\w*|"
    r"conversazione|cronologia|indirizzo|arquivos?|conteudo|credenciais|senhas?|chaves?|conversa"
    r"|historico|endereco)\b",
    r"(?:发送|发给|上传|转发|复制|附上|附加|提交|传给|传到|发到)[^。]{0,20}(?:文件|内容|凭据|凭证|密码|密钥|令牌|对话|"
    r"聊天记录|历史|地址|电话)",
    r"(?:把|将)[^。]{0,20}(?:文件|内容|凭据|凭证|密码|密钥|令牌|对话|聊天记录|历史|地址|电话)[^。]{0,15}(?:发送|发给|上传|"
    r"转发|传给|传到|发到|提交)",
    r"(?:ファイル|内容|認証情報|パスワード|鍵|トークン|会話|履歴)[^。]{0,15}(?:送信|送って|アップロード|転送)",
)))
# Mentions, not requests: inside quotes of any script.
_QUOTED = re.compile(r"\"[^\"]{1,200}\"|„[^“”]{1,200}[“”]|«[^»]{1,200}»|“[^”]{1,200}”|"
                     r"「[^」]{1,200}」|‘[^’]{1,200}’|`[^`]{1,200}`")
_NEGATED = re.compile(r"\b(?:nie|niemals|jamais|nunca|mai)\b|从不|绝不|決して")
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$)|[。！？]|\n")


@lru_cache(maxsize=4096)
def _fold(text: str) -> str:
    """Lowercased, accents stripped, same length when every accent is precomposed."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def in_other_language(text: str) -> bool:
    """Whether ``text`` may be in one of the languages read here.

    When it may not, :func:`read_foreign` finds nothing in it, whatever tool it is read for.
    """
    words = tokenised[text][1]
    if not _MARKERS.isdisjoint(words) and len(_MARKERS.intersection(words)) >= 2:
        return True
    return not text.isascii() and _CJK.search(text) is not None


def _sentence_of(folded: str, start: int) -> tuple[int, int]:
    lo = max((m.end() for m in _SENTENCE_END.finditer(folded, 0, start)), default=0)
    hi = _SENTENCE_END.search(folded, start)
    return lo, hi.start() if hi else len(folded)


def _excused(folded: str, m: re.Match[str]) -> bool:
    """Quoted, or negated in its own sentence before the match."""
    if any(q.start() <= m.start() and m.end() <= q.end() for q in _QUOTED.finditer(folded)):
        return True
    lo, _ = _sentence_of(folded, m.start())
    return _NEGATED.search(folded, lo, m.start()) is not None


def _own_subject(folded: str, m: re.Match[str], ctx: ToolContext) -> bool:
    """What is sent is the tool's own input: a file tool's file, a mail tool's address."""
    said = words_of(m.group())
    stems = {w[:4] for w in ctx.purpose if len(w) >= 4}
    return any(w[:4] in stems for w in said if len(w) >= 4)


def read_foreign(text: str, ctx: ToolContext,
                 first_sentence_describes: bool = False,
                 ) -> list[tuple[Rule, str, int, int, str]]:
    """Read ``text`` for directives in another language.

    ``first_sentence_describes``: the text is a description, whose first sentence says
    what the tool does (``Sendet die Datei an ...``), not what the model should do.
    """
    if not in_other_language(text):
        return []
    folded = _fold(text)
    same = len(folded) == len(text)
    out: list[tuple[Rule, str, int, int, str]] = []

    def span(m: re.Match[str]) -> tuple[int, int]:
        return (m.start(), m.end()) if same else (-1, -1)

    for pattern in (_OVERRIDE, _CONCEAL):
        m = next((m for m in pattern.finditer(folded) if not _excused(folded, m)), None)
        if m is not None:
            out.append((R.FOREIGN_OVERRIDE, "high", *span(m),
                        "tells the model, in another language, to drop its rules or to act "
                        "behind the user's back"))
            break
    asks = []
    for m in _FIRST.finditer(folded):
        if not _excused(folded, m):
            asks.append((m, "warning", " (to put this tool first)"))
            break
    for m in _SEND.finditer(folded):
        if _excused(folded, m) or _own_subject(folded, m, ctx):
            continue
        if first_sentence_describes and _sentence_of(folded, m.start())[0] == 0:
            continue
        asks.append((m, "high", " (to send a file or the user's data)"))
        break
    if asks:
        m, severity, what = max(asks, key=lambda a: a[1] == "high")
        out.append((R.FOREIGN_ASK, severity, *span(m),
                    "asks the model, in another language, for something beyond this call"
                    + what))
    return out
