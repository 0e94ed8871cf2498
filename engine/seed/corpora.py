"""The seeds' calibration corpora as generator forms (expanded by `engine.seed.textgen`)."""

from typing import Any

VERBS = ["check", "verify", "inspect", "read", "compare", "trace", "confirm"]
OBJECTS = ["the adapter", "the schema", "the config row", "the log line", "the registry", "the detector"]


def clean_generators(reasoning: int, prose: int, cjk: int) -> dict[str, Any]:
    """The seeds' three never-tripping generators (varied reasoning, unique prose, varied CJK), sized."""
    return {
        "CLEAN varied reasoning": {
            "gen": "seq",
            "template": "Step {i}: I should {v[i%7]} {o[i*5+1%6]} because reason{i*13%9973} suggests case {i*31%7919}. ",
            "from": 0,
            "to": reasoning,
            "lists": {"v": VERBS, "o": OBJECTS},
        },
        "CLEAN unique prose": {"gen": "seq", "template": "token{i}x{i*7919%104729} ", "from": 0, "to": prose},
        "CLEAN varied cjk": {
            "gen": "seq",
            "template": "第{i}步：核对项{i*7919%104729}，理由{i*13%9973}指向情形{i*31%7919}。",
            "from": 0,
            "to": cjk,
        },
    }


LENS_A: dict[str, Any] = {
    "LOOP verbatim en x40": {
        "gen": "repeat",
        "unit": "The user asked about the configuration file. I should check the file. ",
        "times": 60,
    },
    "LOOP near-verbatim (int)": {
        "gen": "seq",
        "template": "I need to verify the adapter accepts this reasoning effort value. {i}\n",
        "from": 0,
        "to": 120,
    },
    "LOOP near-verbatim (clause)": {
        "gen": "seq",
        "template": "I need to verify the adapter accepts this reasoning effort value. attempt {i} of 120.\n",
        "from": 0,
        "to": 120,
    },
    "LOOP ping-pong (2 blocks)": {
        "gen": "repeat",
        "unit": "Let me reconsider. Actually wait. ",
        "times": 100,
    },
    "LOOP cjk verbatim x120": {
        "gen": "repeat",
        "unit": "让我再想想。这个问题的关键在于约束条件是否真的被满足了，需要逐一核对。",
        "times": 120,
    },
    "LOOP cjk + counter": {
        "gen": "seq",
        "template": "让我再想想。这个问题的关键在于约束条件是否真的被满足了，需要逐一核对。第{i}次核对。\n",
        "from": 0,
        "to": 200,
    },
    "LOOP cjk short + counter": {
        "gen": "seq",
        "template": "让我再想想。{i}",
        "from": 0,
        "to": 300,
    },
    **clean_generators(reasoning=500, prose=15000, cjk=500),
}

LENS_B_CLEAN: dict[str, Any] = {
    **clean_generators(reasoning=600, prose=20000, cjk=600),
    "CLEAN markdown rules in prose": {
        "gen": "seq",
        "template": "第{i}步：核对项{i*7919%104729}，理由{i*13%9973}指向情形{i*31%7919}。",
        "from": 0,
        "to": 200,
        "sep": "\n",
        "extras": [
            {"mod": 4, "eq": 3, "template": "\n\n***\n\n"},
            {"mod": 7, "eq": 6, "template": "\n\n---\n\n"},
            {
                "mod": 11,
                "eq": 10,
                "template": "\n| 列甲 | 列乙 |\n|---|---|\n| 值{i} | 值{i+1} |\n",
            },
        ],
    },
    "CLEAN markdown table": {
        "gen": "repeat",
        "unit": "| 列一 | 列二 | 列三 |\n|---|---|---|\n| 值甲 | 值乙 | 值丙 |\n",
        "times": 20,
    },
    "CLEAN code block": {
        "gen": "repeat",
        "unit": "const x = compute(a, b);\nif (x > 0) { return x; }\n",
        "times": 40,
    },
    "CLEAN long equals rule": {
        "gen": "repeat",
        "unit": {
            "gen": "concat",
            "parts": [
                "正文说明如下：\n",
                {"gen": "repeat", "unit": "=", "times": 200},
                "\n以上是全部内容说明。\n",
            ],
        },
        "times": 4,
    },
    "CLEAN emoji as annotation": {
        "gen": "repeat",
        "unit": "先确认✅再核对🔍然后记录📝最后汇报📌另外注意⚠️细节🔎不要漏。",
        "times": 40,
    },
    "CLEAN base64": {
        "gen": "repeat",
        "unit": "aGVsbG8gd29ybGQgdGhpcyBpcyBhIGxvbmdlciBiYXNlNjQgc3RyaW5nIA==",
        "times": 20,
    },
    "CLEAN numeric table": {
        "gen": "seq",
        "template": "{i*7919},",
        "from": 0,
        "to": 400,
    },
    "CLEAN ascii box": {
        "gen": "repeat",
        "unit": "+----------------------+\n| 名称 | 数值 | 说明 |\n+----------------------+\n",
        "times": 20,
    },
}

LENS_B_DEGENERATE: dict[str, Any] = {
    "DEGEN star flood (space)": {"gen": "repeat", "unit": "*** ", "times": 200},
    "DEGEN star flood (line)": {"gen": "repeat", "unit": "***\n", "times": 200},
    "DEGEN star single run": {"gen": "repeat", "unit": "*", "times": 600},
    "DEGEN emoji rotating": {"gen": "repeat", "unit": "😀🎉🔥", "times": 200},
    "DEGEN emoji same": {"gen": "repeat", "unit": "😀", "times": 400},
    "DEGEN emoji varied (no repeat)": {
        "gen": "seq",
        "template": "{cp:127744+i*37%200}",
        "from": 0,
        "to": 800,
    },
    "DEGEN cjk period flood": {"gen": "repeat", "unit": "。", "times": 400},
    "DEGEN punctuation soup": {"gen": "repeat", "unit": "，。！？；：", "times": 120},
    "DEGEN equals flood": {"gen": "repeat", "unit": "=====", "times": 80},
    "DEGEN pipe flood": {"gen": "repeat", "unit": "||||||||| ", "times": 60},
    "DEGEN symbol + emoji": {
        "gen": "repeat",
        "unit": "*** 😀 *** 🎉 *** 🔥 ",
        "times": 30,
    },
}
