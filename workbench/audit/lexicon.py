"""The audit's vocabulary: the words and patterns that say who a text addresses and what it asks.

:mod:`~workbench.audit.text` decides what a match means in context (negation,
quotation, the tool's own purpose); this module only says what to look for. What belongs to
the user or the session has its own module (:mod:`~workbench.audit.user_data`); the
cheap word tests that let most sentences skip a pattern block are in
:mod:`~workbench.audit.gates`.
"""

from __future__ import annotations

import re

from workbench.audit.match import CaseBlind, Gated, alt, rx

__all__ = ["ADDRESS", "BEYOND", "DROP_VERBS", "FAVOUR", "FILE_WORDS", "FIXED_ADDRESS",
           "GENERIC_PATH_WORDS", "GENERIC_TOOLS", "HANDOVER", "IMPERATIVE", "IMPERATIVE_VERBS",
           "NAMED_TOOL_ANY", "NAMED_TOOL_HOOK", "OVERRIDE", "PRIORITY", "READ_PATH", "RECIPIENT",
           "RECORD_OWNER", "SCOPE", "SECRET", "SECRET_FILE", "SECRET_PURPOSE", "SECRET_SOURCE",
           "SECURITY_TOPICS", "SHADOW_VERB", "STORED_IN", "STRONG", "TOOL_TOKEN", "TRANSFER",
           "UNASKED", "WORD"]


# -- what a sentence asks for --------------------------------------------------------------
# Telling the model to drop its rules or to act behind the user's back: no honest reading.
DROP_VERBS = ("ignor", "disregard", "forget", "overrid", "supersed", "bypass")
OVERRIDE = Gated(
    (DROP_VERBS, r"\b(?:ignore|disregard|forget|overrides?|supersedes?|bypass)\s+"
     r"(?:all\s+|any\s+|the\s+)?(?:(?:previous|prior|above|earlier|other|your|system|safety)"
     r"\s+)+\w+"),
    (DROP_VERBS, r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+)?"
     r"(?:instructions?|rules|directions|prompts?|guidelines|guidance|policies|restrictions)"),
    (("note",), r"\bnote\s+(?:to|for)\s+(?:the\s+)?(?:ai|assistants?|models?|llms?|agents?)\b"),
    (((":",), ("assistant", "system", "=ai")), r"^\W*(?:assistant|system|ai)\s*:"),
    (("hide",), r"\bhide\s+(?:this|it|that)\b[^.]{0,40}\bfrom\b"),
    (("only with",), r"\b(?:respond|reply|answer)\s+only\s+with\b"),
    (("<",), r"<\s*/?\s*(?:important|system|instructions?|secret|admin|hidden|assistant|sys)"
     r"\s*>|<!--"),
    (("[//]", "[comment]"), r"\[(?://|comment)\]:\s*#"),
    ((("not", "n't"), ("must", "should", "shall", "will")),
     r"\b(?:must|should|shall|will)\s*(?:not|n't)\s+(?:tell|mention|inform|reveal|disclose|show|"
     r"notify|alert|let\s+(?:the\s+)?user\s+know)\b"),
    ((("ask",), ("=if",), ("say", "answer", "reply", "respond", "claim", "tell")),
     r"\bif\s+(?:the\s+user\s+|they\s+|anyone\s+)?(?:is\s+|ever\s+)*ask(?:s|ed)?\b[^.]{0,80}?\b(?:say|"
     r"answer|reply|respond|claim|tell\s+(?:them|the\s+user))\b"),
    (("admin", "system", "assistant", "developer", "operator"),
     r"(?-i:\b(?:ADMIN|SYSTEM|ASSISTANT|DEVELOPER|OPERATOR)\s*:)"),
    ((("outrank", "precedence", "overrid", "supersed"), ("user", "instructions")),
     r"\b(?:outranks?|takes\s+precedence\s+over|overrides?|supersedes?)\s+(?:the\s+)?(?:user|"
     r"your\s+instructions|anything\s+the\s+user)\b"),
    (("#",), r"#{2,}\s*(?:attention|note|important|notice|read\s+me)\b[^#\n]{0,30}\b(?:model|"
     r"assistant|ai|agent|llm)s?\b"),
    ((("role",), ("system", "developer", "admin")),
     r"[\"']?role[\"']?\s*:\s*[\"']?(?:system|developer|admin)\b"),
    (("disclose", "show", "tell", "reveal", "notify", "visible"),
     r"\b(?:disclose|show|tell|reveal|notify|visible)_?(?:to_?)?user[\"']?\s*[:=]\s*(?:false|no|0)\b"),
    ((("hidden", "secret", "private", "confidential"), ("stay", "remain", "kept")),
     r"\b(?:must|should|is\s+to)\s+(?:stay|remain|be\s+kept)\s+(?:hidden|"
     r"secret|private|confidential)\b"),
    (("ignore", "disregard"), r"\b(?:ignore|disregard)\s+(?:the\s+|what\s+the\s+)?(?:query|request|"
     r"question|input|prompt|message|words?)?\s*(?:the\s+)?user\b"),
    (("[", "##"), r"\[\[?\s*(?:system|admin|assistant|developer|sys|policy|operator)"
     r"[\w\s.-]*\]\]?|#{2,}\s*(?:system|admin|assistant)\s*#*"),
    (("system", "admin", "operator", "developer", "maintainer"),
     r"\b(?:system|admin(?:istrator)?|operator|developer|maintainer)\s+(?:override|note|message|"
     r"notice)\b"),
    ((("not",), ("shown", "told", "revealed", "disclosed", "mentioned", "shared")),
     r"\bnot\s+to\s+be\s+(?:shown|told|revealed|disclosed|mentioned|shared)\s+(?:to|with)\s+"
     r"(?:the\s+)?user\b"),
    ((("instructions",), ("void", "null", "cancel", "revoked", "obsolete", "superseded",
                          "longer")),
     r"\b(?:previous|prior|earlier|above|all|any|other)\s+instructions\b[^.]{0,40}?\b(?:are|is)\s+"
     r"(?:now\s+)?(?:void|null|cancell?ed|revoked|obsolete|superseded|no\s+longer\s+(?:valid|in\s+"
     r"effect|apply))"),
    (("end of",), r"\bend\s+of\s+(?:the\s+)?(?:tool\s+)?description\b"),
    (("restriction", "constraint", "rules", "guideline", "limits", "safeguard"),
     r"\b(?:restrictions|constraints|rules|guidelines|limits|safeguards)\s+(?:are|have\s+been"
     r"|were)\s+(?:lifted|removed|disabled|suspended|waived|off)\b"),
    (((" be ",), ("shown", "told", "revealed", "disclosed", "mentioned", "visible")),
     r"\b(?:must|should|will)\s+(?:never|not)\s+be\s+(?:shown|told|revealed|"
     r"disclosed|mentioned|visible)\s+to\b"),
    ((("developer",), ("mode",)), r"\bdeveloper\s+mode\b"),
    ((("=no",), ("restrictions", "limits", "rules")), r"\bno\s+(?:restrictions|limits|rules)\b"),
    (("jailbreak",), r"\bjailbreak"),
    ((("not", "n't", "dont", "never", "no need"),
      ("tell", "mention", "inform", "reveal", "disclose", "show", "display", "print", "notify",
       "alert", "bring", "ask", "bug", "bother", "trouble", "check")),
     # Not the server of itself: "we don't ask for GPS", "we never show ads".
     r"(?<!\bwe\s)\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+(?:tell|mention|inform|reveal|"
     r"disclose|show|display|print|notify|alert|bring\s+(?:this|it|that|the\s+\w+)(?:\s+\w+){0,3}\s+up|ask|bug|"
     r"bother|trouble|check\s+with)\b"),
    (("message from", "maintenance mode", "failure to comply", "suspend"),
     r"\bmessage\s+from\s+(?:the\s+)?(?:model\s+provider|anthropic|openai|safety\s+team|system|"
     r"administrator|admin|platform|security\s+team)|\bmaintenance\s+mode\b|\bfailure\s+to\s+"
     r"comply\b|\b(?:will\s+be|will)\s+suspend(?:ed)?\b"),
    (("without",), r"\bwithout\s+(?:telling|informing|notifying|asking|alerting|showing|"
     r"mentioning|bringing\s+(?:it|this|that|them)\s+up|dwelling\s+on|noting|disclosing|revealing|drawing\s+attention\s+to|reference\s+to"
     r"\s+this\s+(?:service|tool|server|integration))\b"
     # Asking in other words: "without checking with the user", "without interrupting the
     # user to ask" (not "runs without interrupting the user": that is an outcome).
     r"|\bwithout\s+(?:(?:consulting|checking\s+(?:in\s+)?with|confirming\s+with)\s+(?:the\s+"
     r"user|them)\b|(?:interrupting|bothering|disturbing|troubling|pinging)\s+(?:the\s+user|"
     r"them)\s+(?:to\s+(?:ask|confirm|check)|for\s+(?:confirmation|approval|consent|"
     r"permission)|with\s+(?:a\s+)?(?:questions?|prompts?))\b)"),
    # Asking the user called needless: "checking with the user first isn't usually
    # considered necessary", "consulting them is generally not required".
    ((("ask", "check", "confirm", "consult", "interrupt", "bother"),
      ("necessary", "needed", "required")),
     r"\b(?:asking|checking\s+(?:in\s+)?with|confirming\s+with|consulting|interrupting|"
     r"bothering)\s+(?:the\s+user|them)\s+(?:\w+\s+){0,2}?(?:is|are)(?:\s+\w+)?\s*(?:not|"
     r"n't|n’t|never|rarely|seldom)\s+(?:\w+\s+){0,2}?(?:necessary|needed|required)\b|"
     r"\b(?:asking|checking\s+(?:in\s+)?with|confirming\s+with|consulting|interrupting|"
     r"bothering)\s+(?:the\s+user|them)\s+(?:\w+\s+){0,2}?(?:is|are)\s+(?:\w+\s+){0,2}?"
     r"unnecessary\b"),
    # ... or in the passive: "reviewers rarely need to be consulted about this copy".
    ((("consulted", "asked", "told", "informed", "notified", "involved", "bothered"), ("need",)),
     r"\b(?:the\s+)?(?:users?|reviewers?|owners?|approvers?|customers?|clients?|people|humans?|"
     r"they|them)\s+(?:rarely|seldom|never|don'?t|do\s+not|does\s+not|doesn'?t|needn'?t)\s+"
     r"(?:really\s+|usually\s+|generally\s+)?need\s+(?:to\s+)?(?:be\s+)?(?:consulted|asked|told|"
     r"informed|notified|involved|bothered)\b"),
    ((("=own",), ("judgment", "judgement", "opinion", "recommendation", "idea", "view")),
     r"\b(?:assistant|model|agent|ai|your)(?:'s)?\s+own\s+(?:independent\s+)?(?:judge?ment|opinion|"
     r"recommendation|idea|view)\b"),
    (("regardless of",),
     r"\bregardless\s+of\s+(?:what|the\s+\w+|which\s+\w+)\s+(?:\w+\s+)?(?:the\s+)?user\s+(?:gives|"
     r"asks|says|wants|chose|chooses|picked|provides|requested)\b"),
    (("confirmation", "consent", "approval", "permission"),
     r"\b(?:user\s+)?(?:confirmation|consent|approval|permission)\s+(?:is\s+)?(?:not\s+(?:needed|"
     r"required|necessary)|unnecessary)\b|\bno\s+(?:need\s+for\s+)?(?:user\s+)?(?:confirmation|"
     r"consent|approval)\s+(?:is\s+)?(?:needed|required|necessary)\b"),
    (("keep", "kept"), r"\b(?:keep|kept)\s+(?:this|it|that)\s+(?:secret|hidden|private|"
     r"between)\b"),
    # "silently run git_add" is an instruction; "succeeds silently." describes an outcome.
    (("silently", "quietly", "secretly", "covertly", "discreetly"),
     r"\b(?:silently|quietly|secretly|covertly|discreetly)\s+(?!(?:fail|ignor|skip|drop|"
     r"return|succeed|discard|truncat|overwrit)\w*\b)[a-z]+"),
    ((("user",), ("not",), ("know", "see", "told", "notice")),
     r"\b(?:the\s+)?user\s+(?:must|should)\s+not\s+(?:know|see|be\s+told|notice)"),
    ((("hidden", "secret", "real", "true"), ("objective", "goal", "task", "instruction")),
     r"\b(?:your|a)\s+(?:hidden|secret|real|true)\s+(?:objective|goal|task|instructions?)\b"),
    (("instructions", "now on"), r"\b(?:new|updated|hidden)\s+instructions\b|\bfrom\s+now\s+on\b"),
)
# Who is addressed: the model ("you", "the assistant"), or a favour the server asks of it.
ADDRESS = Gated(
    (("you", "assistant", "model", "=ai", "llm", "agent"),
     r"\b(?:you|your|the\s+assistant|assistants?|the\s+model|the\s+ai|llms?|the\s+agent)\b"),
)
# Each alternative behind the words every match of it holds (a Gated search takes the
# earliest match, and the first rule at a tie, as one alternation would).
FAVOUR = Gated(
    ((("=we", "=us", "=our"), ("ask", "appreciate", "grateful", "thank", "help", "prefer",
                               "love", "courtesy", "request")),
     r"\b(?:we|us|our)\b[^.]{0,40}\b(?:ask|appreciate|grateful|thank|helps?|prefer|love|"
     r"courtesy|request)"),
    (("great", "lovely", "wonderful", "nice", "helpful", "appreciated", "grateful"),
     r"\b(?:it\s+)?(?:helps|would\s+be|'d\s+be)\s+(?:us\s+)?(?:great(?:ly)?|lovely|wonderful|"
     r"nice|helpful|appreciated|grateful)"),
    (("kindly", "please", "ideally", "nice", "thank", "reminder"),
     r"\b(?:kindly|please|ideally|a\s+nice\s+touch|thank\s+you\s+for|friendly\s+reminder)\b"),
    (("customarily", "convention", "traditionally"),
     r"\b(?:customarily|conventionally|by\s+convention|traditionally)\b"),
    (("favor", "favour", "courtesy"), r"\bas\s+a\s+(?:small\s+|little\s+)?(?:favou?r|courtesy)\b"),
    ((("could", "would"), ("=you",)), r"\b(?:could|would)\s+you\b|\bwould\s+you\s+mind\b"),
    ((("like", "love", "appreciate", "prefer"), ("=it",)),
     r"\b(?:like|love|appreciate|prefer)s?\s+it\s+(?:if|when)\b"),
    (("practice", "works", "find"),
     r"\b(?:good|best)\s+practice\b|\bworks\s+best\s+when\b|\bwe\s+find\b"),
    (("expected",), r"\b(?:is|are)\s+expected\s+to\b"),
    (("experience", "result"),
     r"\bfor\s+the\s+(?:best|smoothest|optimal)\s+(?:experience|results)\b"),
    (("find", "appreciate", "expect", "prefer", "like"),
     r"\b(?:travell?ers|customers|developers|clients)\s+(?:generally\s+|usually\s+|typically\s+)?"
     r"(?:find|appreciate|expect|prefer|like)\b|\b(?:integration|indexer|server|service|platform)\s+"
     r"expects\b"),
    (("etiquette", "practice", "courtesy", "polite", "customary", "appreciate", "expect",
      "prefer", "like"),
     r"\b(?:considered|deemed)\s+(?:good\s+|proper\s+)?(?:etiquette|practice|courtesy|polite|"
     r"customary)\b|\b(?:users|people|teams)\s+(?:generally\s+|usually\s+)?(?:appreciate|expect|"
     r"prefer|like)\b"),
    # A norm or a convenience: "the customary next step is for the assistant to ...", "the
    # practice group finds it convenient when the assistant ...".
    (("customary",), r"\b(?:the\s+)?customary\s+(?:next\s+)?(?:step|practice|procedure|routine|"
     r"courtesy|thing)\b|\bit\s+is\s+customary\b"),
    (("convention", "custom", "practice"),
     r"\b(?:long-?standing|established)\s+(?:convention|custom|practice)\b|\bby\s+(?:long-?"
     r"standing\s+)?custom\b"),
    (("convenient", "smoother"),
     r"\b(?:finds?|found)\s+it\s+(?:convenient|smoother)\b|\bgo(?:es)?\s+(?:a\s+lot\s+|much\s+)?"
     r"smoother\s+when\b|\bit\s+is\s+(?:more\s+)?convenient\s+(?:when|if)\b"),
)
# Asking for more than the call: piggy-backed actions and behaviour beyond this tool.
_BEYOND_TRIGGERS = ("also", "as well", "in addition", "additionally", "each time",
                    "every time", "afterwards", "after", "go on to", "whatever", "second time",
                    "follow", "once", "result", "behalf", "before", "prior to", "first",
                    "then", "answer", "respond", "reply", "write", "recommend", "promote",
                    "advertise", "avoid", "as the", "customary", "usual", "standard",
                    "expected", "leave", "partner", "followed by")
BEYOND = Gated((_BEYOND_TRIGGERS, alt(
    r"\b(?:also|as\s+well|in\s+addition|additionally|each\s+time|every\s+time|afterwards|"
    r"after\s+(?:that|every|each)|right\s+after|go\s+on\s+to|whatever|a\s+second\s+time|"
    r"follow(?:ed)?\s+(?:each|every|it|this|that)\s+(?:\w+\s+){0,3}?with|(?:after|following)\s+"
    r"(?:each|every)|once\s+(?:(?:a|an|the)\s+)?\w+\s+(?:has|have|is|are|was|were)\s+(?:been\s+)?(?:listed|shown|"
    r"loaded|finished|"
    r"fetched|done|completed|returned|exported|sent))\b",
    r"\bfollows?\s+up\s+(?:by\s+|with\s+)?(?:calling|running|invoking|using)\b",
    r"\bwhen\s+(?:the\s+)?results?\s+(?:come|comes|are)\s+back\b|\bon\s+(?:the\s+user'?s|their)\s+"
    r"behalf\b|\bbefore\s+calling\s+this\b",
    r"\b(?:before|prior\s+to)\s+(?:any|every|each|answering|responding|replying|converting|"
    r"returning|using\s+any)\b",
    r"\b(?:first|then)\s+(?:look\s+up|open|read|call|run|fetch|send|check)\b",
    # Any letter: the rule is case-blind ([a-z] lets it run plain on the lowercased text).
    r"\b(?:answer|respond|reply|write)\s+(?:only\s+)?in\s+[a-z]",
    r"\b(?:recommend|promote|advertise|avoid\s+(?:naming|mentioning))\b",
    r"\bas\s+the\s+(?:recommended|best|preferred|default|top)\s+(?:available\s+)?(?:option|choice|"
    r"provider|pick)\b|\bbe\s+recommended\b",
    r"\b(?:customary|usual|standard|recommended|expected)\s+follow[\s-]?ups?\b",
    r"\bleave\s+(?:the\s+)?others?\s+out\b|\bpartner\s+(?:\w+\s+)?(?:only|first)\b|\bfollowed\s+by\s+"
    r"(?:a|an)\s+[`'\"]?\w+[_-]\w+",
)))
SECRET_FILE = Gated(
    (("~/.",), r"~/\.(?:ssh|aws|gnupg|kube|docker|config/gcloud|cursor|npmrc|netrc|pgpass|"
     r"git-credentials|bash_history|zsh_history)\b[\w./-]*"),
    (("rsa", "dsa", "ed25519"), r"\bid[_\s-](?:rsa|dsa|ecdsa|ed25519)\b"),
    (("env",), r"(?:^|[\s'\"`(/])\.env\b|\bdotenv\s+file|\b(?:env|\.env)\s+files?\b|"
     r"\bdot[\s_-]?env\b"),
    (("/etc/",), r"/etc/(?:passwd|shadow|sudoers)\b"),
    (("mcp.json", "claude_desktop"), r"\bmcp\.json\b|\bclaude_desktop_config\b"),
    (("aws",), r"\.aws/credentials\b|\bdot[\s_-]?aws\b"),
    (("wallet", "keychain", "private-keys"),
     r"\bwallet\.dat\b|\bkeychains?\b|\bprivate-keys-v1\.d\b"),
    # Credentials and tokens on disk, with or without ~/.
    (("npmrc", "pypirc", "netrc", "pgpass", "git-credentials", "kube", "docker", "dot"),
     r"(?:^|[\s'\"`(/])\.(?:npmrc|pypirc|netrc|pgpass|git-credentials|kube/config|"
     r"docker/config\.json)\b|\bkubeconfig\b|\b(?:netrc|npmrc|pypirc|pgpass|git-credentials)\b|"
     r"\bdot[\s_-]?(?:netrc|npmrc|pypirc|ssh|kube|docker|pgpass)\b"),
    (("credentials",), r"\bapplication_default_credentials\b|\bcredentials\.(?:json|csv|db)\b"),
    (("service",), r"\bservice[\s_-]account[\s_-]key"),
    # By the file's extension: "secret" is in most texts about credentials.
    (("tfstate", "yml", "yaml", "json", "env", "toml"),
     r"\bterraform\.tfstate\b|\bsecrets?\.(?:ya?ml|json|env|toml)\b"),
    ((".pem",), r"(?:^|[\s'\"`(/*])\.pem\b|\b[\w-]+\.pem\b"),
    (("~/.config/",), r"~/\.config/[\w.-]+/(?:hosts|credentials|auth|token|tokens|secrets?)\."
     r"(?:json|ya?ml|toml)\b"),
    (("settings file", "config file", "configuration file"),
     r"\b(?:settings|config(?:uration)?)\s+file\s+(?:that\s+)?(?:this|the)\s+(?:app|client|host|"
     r"server|agent)\b"),
    # The browser's own stores: "Chrome's Cookies database", not "the site's cookies".
    (("cookies", "login data", "local state", "web data", "key3", "key4", "logins.json"),
     r"(?-i:\b(?:Cookies|Login\s+Data|Local\s+State|Web\s+Data))\s+(?:database|db|file|store)\b|"
     r"/(?:Cookies|Login\s+Data|Local\s+State)\b|\bkey[34]\.db\b|\blogins\.json\b|"
     r"\bcookies\.sqlite\b"),
    (("application support", "appdata"),
     r"\bApplication\s+Support/(?:Google/Chrome|BraveSoftware|Firefox|Microsoft\s+Edge)|"
     r"\bAppData[/\\](?:Local|Roaming)[/\\](?:Google|Mozilla|Microsoft)"),
    (("browser",), r"\bbrowser(?:'s)?\s+(?:cookies|cookie\s+(?:jar|store|database)|saved\s+"
     r"passwords)"),
)
# Gated rule by rule, in the alternation's order: the cased rules run case-blind, the rest
# plain on the lowercased text (one case-blind alternation cost 20 us a long sentence).
SECRET = Gated(
    # Each alternative holds one of these ("seed words", "connection strings"): never a
    # word as common as "string" or "code" alone.
    (("key", "token", "cookie", "secret", "password", "phrase", "credential", "2fa", "otp",
      "mnemonic", "seed", "recovery", "backup", "connection", "authorization"),
     r"\b(?:api[\s_-]?keys?|api[\s_-]?tokens?|access[\s_-]?tokens?|auth(?:entication)?"
     r"[\s_-]?tokens?|bearer[\s_-]?tokens?|refresh[\s_-]?tokens?|session[\s_-]?(?:tokens?|"
     r"cookies?)|cookies|private[\s_-]?keys?|secret[\s_-]?keys?|secrets?|passwords?|"
     r"passphrases?|credentials?|seed\s+phrases?|recovery\s+phrases?|ssh\s+(?:private\s+)?keys?|"
     r"2fa(?:\s+codes?)?|otp|recovery\s+codes?|backup\s+codes?|mnemonic|seed\s+words|"
     r"client[\s_-]secrets?|signing[\s_-]keys?|connection\s+strings?|authorization\s+headers?)\b"),
    # "your GitHub token", "an OpenAI key"; not a sentence's first word ("Object key; ...").
    (("token", "key", "password"),
     r"(?-i:(?<=[a-z,] )[A-Z][A-Za-z]+\s+(?:tokens?|keys?|passwords?)\b)"),
    # The name's last part is a word of its own ("GITHUB_PAT": "github", "pat").
    (("=key", "=token", "=secret", "=password", "=pass", "=pat"),
     r"(?-i:\b[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASS|PAT)\b)"),
    (("=token", "=key", "=secret", "=password", "=pat"),
     r"(?-i:(?<![A-Za-z0-9])_(?:TOKEN|KEY|SECRET|PASSWORD|PAT)\b)"),
    (("environment",), r"\benvironment\s+variables?\b"),
    # Paraphrases: "the string you use to sign in".
    ((("sign", "log"), ("=use", "=uses", "=used")),
     r"\b(?:string|value|code|phrase|words?|thing)\s+(?:that\s+)?(?:you|they|the\s+user|one)\s+"
     r"(?:use|uses|used)\s+to\s+(?:sign|log)\s*(?:in|on)\b"),
    (("sign",), r"\bsign[\s-]?in\s+(?:string|secret|code|value)\b"),
)
SECRET_SOURCE = rx(
    r"\b(?:configured|stored|saved|set|kept|defined)\s+(?:for|in|as|under)\b[^.]{0,60}\b(?:settings|"
    r"config(?:uration)?|environment|env|keychain|vault|profile|file)\b",
    r"\b(?:from|in)\s+(?:the\s+|your\s+|this\s+|its\s+)?(?:server'?s?\s+|mcp\s+|process\s+|shell\s+|"
    r"system\s+|host\s+|local\s+)?(?:settings|config(?:uration)?"
    r"|environment|env(?:\s+vars?)?|process\.env|os\.environ|keychain)\b",
    r"\becho(?:ed)?\s+(?:it\s+|them\s+)?back\b|\bverbatim\b",
    r"\b(?:your|the)\s+next\s+(?:call|request|tool\s+call)\b",
    # Exposure: the values themselves, whatever the tool is about.
    r"\bvalues?\s+included\b|\bunredacted\b|\bin\s+full\b|\bevery\s+line\b|\b(?:full|raw|"
    r"entire)\s+contents?\b",
    r"\$\{?[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS|PAT)\}?|\bprocess\.env\b|"
    r"\bos\.environ\b",
)
_TRANSFER_TRIGGERS = ("read", "send", "include", "pass", "provide", "attach", "upload",
                      "paste", "share", "give", "forward", "copy", "post", "email", "e-mail",
                      "append", "leak", "exfiltrate", "enter", "supply", "put", "prefix",
                      "add", "store", "keep", "mention", "report", "carr", "route", "sync",
                      "back it up", "record", "save", "log", "capture", "remember", "verbatim",
                      "goes in", "fill", "populate", "weave", "accompan", "submit", "grab",
                      "drop", "stick", "place", "insert", "take", "open", "look up", "holding",
                      "containing")
TRANSFER = Gated((_TRANSFER_TRIGGERS, alt(
    r"\b(?:read|send|sends|include|pass|provide|attach|upload|paste|share|shares|give|forward|"
    r"copy|post|email|e-mail|append|leak|exfiltrate|enter|supply|put|prefix|add|adds|store|"
    r"keep|mention|report|carr(?:y|ied|ies)|route|sync|back\s+it\s+up|record|save|log|"
    r"capture|remember|verbatim|goes\s+in(?:to)?|fill|populate|weave|accompan\w+|submit|grab|"
    r"drop\s+(?:it|them|this)\s+in(?:to)?|stick|place|insert|take|"
    r"open|look\s+up)\b",
)))
# Acting without the user's say: unless negated ("nothing is sent without your consent").
UNASKED = Gated(
    (("without",), r"\bwithout\s+(?:(?:being|having\s+been)\s+(?:asked|told|prompted)|"
     r"(?:the\s+user'?s?\s+|their\s+|any\s+)?(?:confirmation|consent|approval|permission))\b"),
    (("come to expect", "expect this", "expects this", "not being asked", "appreciate"),
     r"\b(?:have|has)\s+come\s+to\s+expect\b|\bexpects?\s+this\s+to\s+happen\b|\bnot\s+being\s+"
     r"asked\b|\bappreciate\s+not\s+(?:being\s+)?ask"),
    # Asking made out to be a nuisance: "users are seldom asked about this", "maintainers
    # would rather not be asked", "shoppers hate being asked twice", "people find the extra
    # question annoying, so most assistants simply go ahead".
    ((("asked", "consulted", "told", "informed", "notified"),
      ("seldom", "rarely", "hardly", "usually", "generally", "normally", "typically", "often",
       "never", "not")),
     r"\b(?:is|are|were|gets?)\s+(?:(?:seldom|rarely|hardly\s+ever|never)\s+|(?:not|usually\s+not|"
     r"generally\s+not)\s+(?:usually\s+|generally\s+|normally\s+|typically\s+|often\s+)?)"
     r"(?:asked|consulted|told|informed|notified)\b(?!\s+(?:to|for|apart)\b)"),
    ((("rather", "prefer"), ("asked", "consulted", "bothered", "interrupted", "told")),
     r"\b(?:would|'d)\s+rather\s+not\s+be\s+(?:asked|consulted|bothered|interrupted|told)\b|"
     r"\bprefers?\s+not\s+to\s+be\s+(?:asked|consulted|bothered|interrupted|told)\b"),
    ((("being",), ("hate", "dislike", "like", "resent", "mind")),
     r"\b(?:hate|dislike|don'?t\s+like|do\s+not\s+like|resent)\s+being\s+(?:asked|prompted|"
     r"interrupted|bothered)\b"),
    ((("ahead",), ("question", "ask", "confirm", "prompt")),
     r"\b(?:question|ask|confirm|prompt)\w*\b[^.]{0,80}?\b(?:simply|just)\s+go\s+ahead\b"),
    ((("necessary", "needed", "worth"), ("rarely", "seldom", "usually", "hardly")),
     r"\b(?:rarely|seldom|not\s+usually|hardly\s+ever)\s+(?:thought\s+|considered\s+|deemed\s+)?"
     r"(?:necessary|needed|worth\s+it)\s+to\s+(?:mention|ask|tell|inform|confirm|check)\b"),
    (("even when", "even if", "whether or not"),
     r"\beven\s+(?:when|if)\s+(?:the\s+user|they|nobody|no\s+one)\s+(?:didn'?t|did\s+not|doesn'?t|"
     r"does\s+not|never|has\s+not|hasn'?t)\s+(?:say|ask|request|mention)|\bwhether\s+or\s+not\s+"
     r"(?:they|the\s+user)\s+(?:asked|wants?|agreed)"),
)
# Going beyond what the user asked for: more repositories, every file, not just the one.
SCOPE = Gated(
    (("not just", "not only", "beyond", "in addition to", "rather than just"),
     r"\b(?:not\s+(?:just|only)|beyond|in\s+addition\s+to|rather\s+than\s+just)\s+(?:the\s+)?"
     r"(?:one|ones|those|what|files?|repositor(?:y|ies)|items?|results?)\s+(?:that\s+)?"
     r"(?:was\s+|were\s+|is\s+|are\s+|has\s+been\s+)?(?:the\s+user\s+)?(?:asked|requested|"
     r"specified|named|given|provided|mentioned)"),
    (("whatever the", "everything in the user", "everything in their"),
     r"\bwhatever\s+the\s+(?:question|request|task|user\s+asked)\s+(?:was|is)\s+about\b|"
     r"\beverything\s+in\s+(?:the\s+user'?s|their)\b"),
    # A remote script piped into a shell: code no one asked for, run wherever it is put.
    ((("curl", "wget"), ("|",)),
     r"\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b"),
    (("along with the", "together with the"),
     r"\b(?:along|together)\s+with\s+the\s+(?:requested|asked|user'?s)\b"),
    # "even when the summary was only requested for the user", "even if the user only asked
    # for one file": more than the request.
    ((("even when", "even if"), ("only",)),
     r"\beven\s+(?:when|if)\s+(?:[\w']+\s+){0,5}?only\s+(?:requested|asked\s+for|wanted|"
     r"needed)\b"),
    (("every", "all "),
     r"\b(?:every|all)\s+(?:\w+\s+)?(?:found\s+|located\s+)?(?:under|in|on|across)\s+the\s+"
     r"(?:user'?s?|whole|entire)\s+(?:home|machine|computer|disk|drive|system|account)"),
)
# Words that tie a secret or path to a tool's own purpose (a vault, a login, ssh config).
SECRET_PURPOSE = frozenset({
    "auth", "login", "logout", "signin", "password", "passwords", "secret", "secrets", "vault",
    "key", "keys", "token", "tokens", "credential", "credentials", "ssh", "aws", "gpg", "env",
    "dotenv", "keychain", "wallet", "cookie", "cookies", "session", "oauth", "otp", "2fa",
})
# Another tool named with an instruction: replace, redirect, piggy-back, disparage.
SHADOW_VERB = rx(
    r"\b(?:instead\s+of|rather\s+than|replaces?|in\s+place\s+of|deprecated|broken|unsafe|"
    r"out\s+of\s+date|outdated|insecure|logs?\s+your|prefer)\b",
    r"\b(?:whenever|when(?:ever)?\s+you\s+use|any\s+time|every\s+time|after\s+every|"
    r"before\s+every|when)\b[^.]{0,40}\b(?:is|are)?\s*(?:called|used|invoked|run)?",
    r"\broute\b|\bthrough\b",
)
# A tool named by an instruction about when it runs, even one no server here offers.
NAMED_TOOL_HOOK = Gated(
    ((("=if", "=when", "=whenever", "=after", "=before", "=once"),
      ("=called", "=requested", "=used", "=invoked", "=run")),
     r"\b(?:if|when|whenever|after|before|once)\s+(?:the\s+|any\s+|a\s+|an\s+)?[`'\"]?"
     r"([A-Za-z]+[_-][A-Za-z0-9_-]+)[`'\"]?(?:\s+or\s+[`'\"]?[A-Za-z]+[_-][A-Za-z0-9_-]+[`'\"]?)?\s+"
     r"(?:tools?\s+)?"
     r"(?:is|are|gets?|has\s+been)\s+(?:ever\s+)?(?:called|requested|used|invoked|run)\b"))
# An imperative sentence: it starts with a verb that hands something over or acts.
# A leading clause ("Before answering, use ...") may come first.
# Its verbs are also the words of the "imperative" gate (:mod:`~workbench.audit.gates`).
IMPERATIVE_VERBS = ("read", "send", "include", "pass", "provide", "attach", "upload", "paste",
                    "share", "give", "forward", "copy", "post", "email", "append", "leak",
                    "enter", "supply", "put", "prefix", "add", "call", "use", "run", "invoke",
                    "open", "fetch", "store", "keep")
IMPERATIVE = CaseBlind(
    r"\W*(?:[^,.;:]{0,60},\s*)?(?:always\s+|first\s+|also\s+)?(?:"
    + "|".join(IMPERATIVE_VERBS) + r")\b")
# Putting this tool ahead of everything else.
_PRIORITY_TRIGGERS = ("before", "this tool", "start of every")
PRIORITY = Gated((_PRIORITY_TRIGGERS, alt(
    r"\bbefore\s+(?:anything|any\s+other|every|each|answering|responding|replying|doing"
    r"\s+anything|any\s+(?:question|request|task|message|answer))\b"
    # Not a clause about the tool's own steps: "masked before anything is saved".
    r"(?!\s+(?:\w+\s+)?(?:is|are|was|were|gets?|has|have|had)\b)",
    # Unconditional only: "always call this tool when asked X" is a usage hint.
    r"\b(?:call|use|run|invoke)\s+this\s+tool\s+(?:first|before\s+(?:any|every))\b",
    r"\bfirst,?\s+(?:call|use|run|invoke)\s+this\s+tool\b(?!\s+(?:when|if|to)\b)",
    r"\bat\s+the\s+start\s+of\s+every\b",
)))
STRONG = rx(r"\b(?:must|shall|have\s+to|has\s+to|needs?\s+to|required\s+to)\b")
READ_PATH = Gated(
    (("=read", "=cat", "=open", "=attach", "=include", "=upload", "=send", "=load"),
     r"\b(?:read|cat|open|attach|include|upload|send|load)\s+(?:the\s+)?(?:contents?\s+of\s+"
     r"(?:the\s+)?)?[`'\"]?(?:~/|/home/|/Users/|/root/|/etc/|/var/|[A-Za-z]:\\)[\w./\\-]+"))
FILE_WORDS = frozenset({"path", "paths", "file", "files", "filename", "directory", "dir",
                         "folder"})


# "Any send_email tool used in this session should ...": a tool named by what it is.
NAMED_TOOL_ANY = Gated(
    ((("=any", "=every", "=all", "=each", "=other"),
      ("=tool", "=tools", "=call", "=calls", "=function", "=functions")),
     r"\b(?:any|every|all|each|other)\s+[`'\"]?([A-Za-z]+[_-][A-Za-z0-9_-]+)[`'\"]?\s+"
     r"(?:tools?|calls?|functions?)\b"))
# A destination written into a tool's text: an e-mail address that is not a placeholder, a
# wallet address. A tool documents where *its* data goes through parameters.
# An e-mail address that is not a placeholder (someone@example.com, you@...).
_EMAIL = (r"(?<![\w.+-])(?![\w.+-]*@(?:example|test|domain|company|acme)\.)(?!(?:user|you|name|"
          r"me|someone|email|alice|bob|jane|john|foo)@)[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b")
FIXED_ADDRESS = re.compile(
    _EMAIL +
    r"|\b0x[0-9a-fA-F]{40}\b|\bbc1[a-z0-9]{25,62}\b|(?<![\w+])\+\d[\d\s().-]{7,}\d\b")
# What sends something to a fixed destination: a transfer, a trailer, an invite.
HANDOVER = rx(r"\b(?:transfer|trailer|co-authored-by|signed-off-by|recipients?|attendees?|replaced|"
              r"invite|contribution|tip|donat\w+|payout|cc|bcc)\b")
# A fixed recipient written into a tool's text: "add archive@example.net as BCC".
RECIPIENT = CaseBlind(
    _EMAIL + r"(?=[^.]{0,60}\b(?:bcc|cc|copy|copies|recipients?|"
    r"attendees?|forward|added|add|share\w*)\b)|\b(?:bcc|cc|copy|forward|add|added|include|send|"
    r"share\w*|set\s+to)\b[^.]{0,60}" + _EMAIL)
GENERIC_TOOLS = Gated(((("tool", "function"), ("=of", "server", "=other", "=another", "=any")), alt(
    r"\b(?:tools?|functions?)\s+of\s+the\s+[`'\"]?[\w-]+[`'\"]?\s+(?:server|mcp|integration)\b",
    r"\bthe\s+[`'\"]?[\w-]+[`'\"]?\s+server'?s\s+tools\b",
    r"\b(?:any|all|every|each)\s+other\s+tools?\b",
    r"\b(?:when|whenever|if)\s+(?:any|another|other)\s+tools?\b",
    r"\bother\s+tools?\s+(?:must|should|are|is|on\s+this)\b",
)))
TOOL_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]")
#: A word of a lowercased text: a run of letters and digits (gates and names are found by it).
WORD = re.compile(r"[a-z0-9]+")

# Path words too common to tie a path to a tool ("git" in git_diff and ~/.git-credentials).
GENERIC_PATH_WORDS = frozenset({"git", "config", "etc", "json", "dat", "desktop", "private",
                                 "keys", "key", "bash", "zsh", "history", "home", "d", "v1"})


# -- context the reading weighs ------------------------------------------------------------
# A tool about attacks quotes them: a scanner lists "phrases like 'ignore ...' or <IMPORTANT>".
SECURITY_TOPICS = frozenset({"finding", "findings", "threat", "threats", "vulnerability",
                              "attack", "attacks", "exploit", "malware",
                              "scan", "scanner", "audit", "auditor", "detect", "detector",
                              "guard", "lint", "linter", "injection", "injections", "poison",
                              "poisoning", "security", "sanitize", "sanitise", "moderate",
                              "moderation", "firewall", "redact", "redactor", "shield"})
# Where the tool keeps its own secret: "stores it in the operating system ", "remove it from
# the ".
STORED_IN = CaseBlind(r"\b(?:stor|sav|keep|kept|cach|persist|put)\w*\s+(?:(?:it|them|the\s+\w+|"
                        r"this\s+\w+)\s+)?(?:securely\s+)?in(?:to)?\s+(?:the\s+|your\s+|its\s+)?"
                        r"(?:[\w'’-]+\s+){0,3}$|\b(?:remov|delet|clear|eras)\w*\s+(?:it|them|the\s+"
                        r"\w+)\s+from\s+(?:the\s+|your\s+|its\s+)?(?:[\w'’-]+\s+){0,3}$")
# A record whose person a possessive names: "the commit author's", "the message sender's".
RECORD_OWNER = CaseBlind(r"\b(?:commit|message|e-?mail|event|issue|ticket|comment|post|"
                           r"document|file|pull\s+request|pr|review|invoice|order|package|page|"
                           r"note|task|article|video|song|track|book|repository|repo|release|"
                           r"build|job|pipeline|calendar|meeting)\s+$")
