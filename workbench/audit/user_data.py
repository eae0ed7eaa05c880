"""What belongs to the user or the session: the vocabulary of asking a model for it.

A tool's call needs its arguments. The conversation, what the user said or opened, their
contacts, calendar or location, the open tabs or the clipboard are the user's, and a tool
text that asks the model to pass them on is a directive, unless the tool's own subject is
that data (a chat exporter reads the conversation): ``USER_DATA_TOPICS`` and
``SESSION_TOPICS`` say which subjects make it so. :mod:`~workbench.audit.text`
weighs negation and address; this module only says what to look for.
"""

from __future__ import annotations

from workbench.audit.match import Gated, rx

__all__ = ["PERSONAL", "SESSION", "SESSION_TOPICS", "USER_DATA", "USER_DATA_TOPICS"]

# Data that belongs to the user or the session, not to a tool's call.
# The session itself: the conversation, earlier turns, the system prompt.
SESSION = rx(
    r"\b(?:conversation|chat(?:\s+history)?|message\s+history|messages?\s+so\s+far|"
    r"previous\s+(?:answer|messages?|replies)|last\s+message|what\s+the\s+user\s+"
    r"(?:said|wrote)|system\s+prompt|your\s+instructions)\b",
)
PERSONAL = rx(
    SESSION.pattern,
    r"\b(?:the\s+)?(?:user|human|person)(?:'s|s')\s+\w+",
    r"\b(?:recent|earlier|previous)\s+(?:messages?|turns?|prompts?)\b",
    r"\bwhat\s+the\s+(?:user|person|human)\s+(?:is|was|has|had)\b",
    r"\b(?:their|your)\s+(?:next\s+meeting|calendar|contacts?|location|home\s+address)",
)

# What the user or the session holds that a tool's call never needs: the conversation and
# its earlier turns, what the user said, shared or opened, their personal details. Each
# pattern runs only when one of its trigger words occurs.
# Not "responses": "the cursor from the previous response" is a tool's own pagination.
_MSGS = (r"(?:messages?|turns?|prompts?|quer(?:y|ies)|questions?|requests?|answers?|"
         r"replies|searches|exchanges|conversations?|sessions?|inputs?|commands|chats?)")
USER_DATA = Gated(
    (("conversation", "chat", "dialog", "transcript", "thread"),
     r"\b(?:conversations?|chat(?:\s+(?:history|log|transcript))?|dialog(?:ue)?|transcripts?|"
     r"(?:e-?mail|message)\s+threads?)\b", "session"),
    ((("previous", "prior", "preceding", "earlier", "recent", "last", "past"),
      ("message", "turn", "prompt", "quer", "question", "request", "answer", "replies",
       "searches", "exchange", "conversation", "session", "input", "command", "chat")),
     r"\b(?:previous|prior|preceding|earlier|recent|last(?:\s+(?:few|several|\d+))?|past)\s+"
     r"(?:\w+\s+)?"
     + _MSGS + r"\b", "session"),
    ((("user", "they", "person", "human", "customer"), ("what", "thing"),
      ("said", "wrote", "written", "typed", "asked", "shared", "pasted", "mentioned", "told",
       "opened", "uploaded", "discussed", "working", "did", "searched", "viewed", "visited")),
     r"\b(?:what|everything|anything|things?|whatever)\s+(?:that\s+)?(?:the\s+)?(?:user|they|"
     r"person|human|customer)\s+(?:has\s+|have\s+|had\s+|is\s+|was\s+|are\s+|were\s+)?(?:said|"
     r"wrote|written|"
     r"typed|asked|shared|pasted|mentioned|told|opened|uploaded|discussed|working\s+on|did|"
     r"searched|viewed|visited)\b", "session"),
    # "the snippet the user is working on": what the user is working on, by another head.
    ((("user", "they"), ("working",)),
     r"\bthe\s+[\w-]+\s+(?:that\s+)?(?:the\s+user|they)\s+(?:is|are|was|were|has\s+been|"
     r"have\s+been)\s+(?:currently\s+|actively\s+)?working\s+on\b", "session"),
    ((("so far", "earlier", "previously", "along the way", "session", "conversation", "chat"),
      ("mentioned", "shared", "said", "discussed", "pasted", "opened", "typed", "seen",
       "provided", "exchanged", "written", "asked")),
     r"\b(?:mentioned|shared|said|discussed|pasted|opened|typed|seen|provided|exchanged|"
     r"written|asked)\s+(?:\w+\s+){0,3}?(?:so\s+far|earlier|previously|along\s+the\s+way|"
     r"(?:during|in)\s+(?:the|this)\s+(?:session|conversation|chat))\b", "session"),
    ((("discussed", "said", "talked", "written", "shared"), ("=what",)),
     r"\bwhat\s+(?:was|has\s+been|we|you\s+and\s+the\s+user)\s+(?:have\s+|has\s+)?(?:discussed|said|"
     r"talked\s+about|"
     r"written|shared)\s+(?:above|so\s+far|earlier|before|previously|elsewhere|in\s+(?:this|the)\s+"
     r"(?:chat|conversation|session))\b", "session"),
    ((("discussed", "said", "mentioned", "shared"), ("elsewhere",)),
     r"\b(?:discussed|said|mentioned|shared)\s+elsewhere\s+in\s+the\s+(?:chat|conversation|"
     r"session)\b", "session"),
    ((("discussed", "said", "written", "shared", "mentioned"), ("above",)),
     r"\b(?:discussed|said|written|shared|mentioned)\s+above\b", "session"),
    ((("known", "learned", "learnt", "gathered"), ("session", "conversation", "chat")),
     r"\b(?:known|learned|learnt|gathered)\s+(?:from|in|during)\s+(?:the|this)\s+(?:session|"
     r"conversation|chat)\b", "session"),
    (("so far",), r"\b(?:session|conversation|chat|discussion)\s+so\s+far\b", "session"),
    # Identifiers the conversation happened to hold: "any account numbers that have come up".
    ((("come", "came"), ("numbers", "names", "addresses", "identifiers", "details")),
     r"\b(?:numbers|names|addresses|identifiers|contact\s+details|personal\s+details)\s+(?:that\s+|"
     r"which\s+)?(?:have\s+|has\s+|had\s+)?(?:come|came)\s+up\b", "session"),
    (("course of the",), r"\bin\s+the\s+course\s+of\s+the\s+(?:exchange|conversation|chat|"
     r"session|discussion)\b", "session"),
    ((("summary", "recap", "digest"), ("session", "conversation", "chat")),
     r"\b(?:summary|recap|digest)\s+of\s+(?:the|this)\s+(?:session|conversation|chat)\b",
     "session"),
    ((("message", "prompt"), ("send", "type", "write", "enter", "submit")),
     r"\b(?:messages?|prompts?)\s+(?:that\s+)?(?:the\s+user|they|you)\s+(?:sends?|types?|writes?|"
     r"enters?|submits?)\b", "session"),
    (("during", "throughout", "across"),
     r"\b(?:during|throughout|across)\s+(?:the|this)\s+(?:session|conversation|chat)\b", "session"),
    (("system prompt", "system message"), r"\bsystem\s+(?:prompt|message)\b", "session"),
    ((("=your",), ("instructions", "context")),
     r"\byour\s+(?:(?:current|own|full|original)\s+)?(?:instructions|context(?:\s+window)?)\b",
     "session"),
    (("context window",), r"\bcontext\s+window\b", "session"),
    ((("=their", "=his", "=her"),
      ("address", "phone", "employer", "birth", "ssn", "passport", "whereabouts", "location",
       "contacts", "calendar", "town")),
     r"\b(?:their|his|her)\s+(?:(?:full|real|legal|own|personal|private|current|exact)\s+)*"
     r"(?:home\s+address|(?:street|postal|e-?mail)\s+address(?:es)?|phone(?:\s+numbers?)?|"
     r"employer|birth\s?(?:day|date)|date\s+of\s+birth|ssn|passport|whereabouts|location|"
     r"contacts|calendar|home\s*town)\b", "personal"),
    ((("'s", "’s", "s'"),
      ("user", "person", "human", "customer", "organi", "requester", "author", "sender",
       "caller", "client", "member", "employee", "patient", "individual")),
     r"\b(?:user|person|human|customer|organi[sz]er|requester|author|sender|caller|client|"
     r"member|employee|patient|individual)(?:'s|s'|’s)\s+"
     r"(?:(?:full|real|legal|own|personal|home|private|current|exact|precise|upcoming|recent|"
     r"saved|other)\s+)*"
     r"(?:names?|e-?mails?(?:\s+address(?:es)?)?|(?:street\s+|postal\s+)?address(?:es)?|"
     r"phone(?:\s+numbers?)?|locations?|employer|birth\s?(?:day|date)|ssn|passport|identity|"
     r"contacts?|contact\s+(?:details|list)|calendar|home\s*town|ip(?:\s+address)?|age|income|"
     r"salary|whereabouts|(?:original\s+|exact\s+|last\s+)?(?:question|query|request|prompt|"
     r"message|words|input)s?|holdings|portfolio|positions|account\s+(?:numbers?|no\.?)|broker|"
     r"finances|health|diagnos[ie]s|medications?|medical\s+\w+|credit\s+card|card\s+number|"
     r"iban)\b", "personal"),
    ((("about", "=on"), ("user", "person", "them", "customer", "human")),
     r"\b(?:know(?:ing)?|context|details?|info(?:rmation)?|everything|anything|facts|notes)\s+"
     r"(?:about|on)\s+(?:the\s+)?(?:user|person|them|customer|human)\b", "personal"),
    (("know", "remember", "learned", "learnt"),
     r"\b(?:what(?:ever)?|everything|anything|all)\s+(?:that\s+)?(?:you|u|the\s+assistant|the\s+"
     r"model|the\s+agent)\s+(?:know|knows|remember|remembers|(?:have|has)\s+learn(?:ed|t))\s+"
     r"about\s+(?:the\s+)?(?:user|them|him|her|the\s+person|the\s+customer)\b", "personal"),
    (("personal",), r"\bpersonal\s+(?:details|information|info|data|particulars)\b",
     "personal"),
    ((("contact",), ("details", "info")), r"\bcontact\s+(?:details|info(?:rmation)?)\b",
     "personal"),
    ((("name",), ("addresses",)), r"\bnames?\s+and\s+e-?mail\s+addresses\b", "personal"),
    ((("=who",), ("user", "person")), r"\bwho\s+the\s+(?:user|person)\s+is\b", "personal"),
    ((("meeting", "located", "staying"), ("=who", "=where")),
     r"\bwho\s+(?:the\s+user\s+is|they\s+are)\s+meeting\b|\bwhere\s+(?:the\s+user\s+is|they\s+"
     r"are)\s+(?:currently\s+)?(?:located|staying)\b", "personal"),
    (("everyone", "everybody", "participants"),
     r"\b(?:names?|e-?mails?|details|contacts?|addresses)\s+of\s+(?:everyone|everybody|all\s+"
     r"(?:the\s+)?participants)\b", "personal"),
    ((("other",), ("document", "file", "repositor", "tab", "project", "window", "account",
                    "mail", "chat", "conversation")),
     r"\b(?:any|all|every)\s+other\s+(?:documents?|files?|repositor(?:y|ies)|tabs?|projects?|"
     r"windows?|accounts?|e-?mails?|chats?|conversations?)\b(?!\s+(?:types?|formats?|kinds?|"
     r"extensions?))", "resources"),
    ((("open",), ("tabs", "documents", "windows", "files")),
     r"\b(?:currently\s+)?open\s+(?:tabs|documents|windows)\b|\bother\s+(?:files|documents|tabs|"
     r"windows)\s+(?:currently\s+)?(?:open|opened)\b", "resources"),
    (("clipboard",), r"\bclipboard\b", "resources"),
    ((("=tab", "=tabs"), ("open", "banking", "bank", "webmail", "mail")),
     r"\b(?:every|each|all)\s+(?:the\s+)?(?:currently\s+)?open\s+tabs?\b|\b(?:banking|bank|"
     r"webmail|e-?mail)\s+tabs?\b", "resources"),
    ((("open",), ("workspace", "editor", "=ide", "browser")),
     r"\bopen\s+in\s+the\s+(?:workspace|editor|ide|browser)\b", "resources"),
    ((("content",), ("files",)),
     r"\bcontents?\s+of\s+(?:any|all|every)\s+(?:[\w-]+\s+){0,3}?files\b", "resources"),
    ((("brows",), ("history", "tabs", "data")), r"\bbrows(?:er|ing)\s+(?:history|tabs|data)\b",
     "resources"),
)
# Topics that make each kind of the user's data a tool's own subject: a chat exporter reads
# the conversation, a contacts app the user's email, a browser tool the open tabs.
USER_DATA_TOPICS = {
    "session": frozenset({"conversation", "conversations", "chat", "chats", "history",
                          "transcript", "message", "messages", "session", "sessions", "thread",
                          "threads", "memory", "prompt", "prompts", "meeting", "meetings",
                          "interview", "minutes", "journal", "diary"}),
    "personal": frozenset({"profile", "contact", "contacts", "user", "users", "me", "account",
                           "accounts", "email", "emails", "mail", "calendar", "crm", "customer",
                           "customers", "person", "people", "attendees", "meeting", "meetings",
                           "inbox", "portfolio", "holdings", "health", "patient", "billing"}),
    "resources": frozenset({"clipboard", "browser", "tabs", "tab", "documents", "files",
                            "workspace"}),
}
# Topics that make the session the tool's own subject (a chat exporter, a summariser).
SESSION_TOPICS = frozenset({"conversation", "chat", "history", "transcript", "message",
                             "messages", "profile", "contact", "contacts", "user", "users",
                             "me", "account"})
