"""PersonaChat-style small talk from templates: a persona fact of the user's, then a question to the bot.

    python benchmarks/smalltalk_persona.py dev|heldout [--n 60] [--seed 0]   (JSONL lines to stdout)

The dev and held-out sides have their own facts, questions and joins (none shared), so a turn of one
side never repeats a fact or a question of the other. The lines were written into
benchmarks/smalltalk_dev.jsonl and benchmarks/smalltalk_heldout.jsonl (``"kind": "persona_template"``);
this script is how, and regenerates them (seeded).
"""

from __future__ import annotations

import argparse
import json
import random
import sys

SIDES = {
    "dev": {
        "en": {
            "facts": ["I have two golden retrievers", "I just moved to Denver", "I work as a nurse",
                      "I love baking bread", "my wife is a teacher", "I play bass in a cover band",
                      "I grew up on a dairy farm", "I'm training for a triathlon", "my son just started college",
                      "I'm allergic to cats", "I volunteer at the animal shelter", "I drive a school bus",
                      "I spent last summer in Italy", "I'm a huge Star Wars fan", "I knit sweaters for fun",
                      "I live two blocks from the beach", "tacos are my favorite food", "I have three sisters",
                      "I work at a bank downtown", "I just adopted a kitten"],
            "questions": ["Do you have a dog?", "What do you like to do on weekends?", "What about you?",
                          "Which city do you live in?", "Do you have brothers or sisters?",
                          "What kind of movies do you like?", "Do you like baking?", "What is your job?",
                          "Have you ever been to Europe?", "Are you seeing anyone?", "What do you like to eat?",
                          "Are you sporty?", "How about yourself?", "Are you an animal person?",
                          "Are you still in school?"],
            "joins": ["{Fact}. {Q}", "{Fact}! {Q}", "Oh nice. {Fact}. {Q}", "Haha, {fact}. {Q}"],
        },
        "zh": {
            "facts": ["我家有两只金毛", "我刚搬到成都", "我是一名护士", "我特别喜欢烤面包", "我老婆是老师",
                      "我在乐队里弹贝斯", "我是在农村长大的", "我在准备铁人三项", "我儿子刚上大学", "我对猫过敏",
                      "我周末去动物救助站做志愿者", "我是开公交车的", "我去年夏天去了意大利", "我是星球大战迷",
                      "我平时喜欢织毛衣", "我家离海边很近", "我最爱吃火锅", "我有三个姐姐", "我在银行上班",
                      "我刚领养了一只小猫"],
            "questions": ["你养狗吗？", "你周末喜欢干嘛？", "你呢？", "你住在哪个城市呀？", "你有兄弟姐妹吗？",
                          "你喜欢看什么电影？", "你会烤东西吗？", "你是干什么的？", "你去过欧洲吗？",
                          "你有对象吗？", "你平时爱吃啥？", "你喜欢运动吗？", "你怎么样？", "你喜欢小动物吗？",
                          "你还在上学吗？"],
            "joins": ["{fact}，{q}", "{fact}！{q}", "哈哈，{fact}，{q}", "跟你说，{fact}。{q}"],
        },
    },
    "heldout": {
        "en": {
            "facts": ["I have two dogs", "I keep bees in my backyard", "I'm a firefighter", "I just got engaged",
                      "I teach yoga on weekends", "my grandma taught me to sew", "I restore old motorcycles",
                      "I coach my daughter's soccer team", "I'm vegan", "I play chess online every night",
                      "I was born in Brazil", "I work the night shift at a factory", "I love sci-fi novels",
                      "I just finished my PhD", "I have a twin brother", "I climb mountains",
                      "I collect vinyl records", "I sing in a church choir", "I'm retired", "I raise chickens"],
            "questions": ["Do you have any animals?", "What do you do for a living?", "And you?",
                          "Where are you from?", "Any siblings?", "What are you into?", "Do you do sports?",
                          "Are you in a relationship?", "What do you eat usually?", "Do you read a lot?",
                          "Have you ever been to South America?", "What's your hobby?", "What about yourself?",
                          "Do you have kids?", "What keeps you busy these days?"],
            "joins": ["{Fact}. {Q}", "Cool, {fact}. {Q}", "{Fact}, by the way. {Q}", "Well, {fact}. {Q}"],
        },
        "zh": {
            "facts": ["我养了两条狗", "我在院子里养蜜蜂", "我是消防员", "我刚订婚了", "我周末教瑜伽",
                      "我奶奶教会我做衣服", "我喜欢修老摩托车", "我在给女儿的足球队当教练", "我吃素",
                      "我每天晚上下象棋", "我是在广州出生的", "我在工厂上夜班", "我爱看科幻小说", "我刚博士毕业",
                      "我有个双胞胎哥哥", "我喜欢爬山", "我收藏黑胶唱片", "我在合唱团唱歌", "我已经退休了",
                      "我在老家养鸡"],
            "questions": ["你有养什么小动物吗？", "你是做什么工作的呀？", "那你呢？", "你是哪里人？", "你有兄弟吗？",
                          "你平时喜欢玩什么？", "你运动吗？", "你结婚了没？", "你一般吃什么？", "你爱看书吗？",
                          "你去过广州吗？", "你的爱好是啥？", "你最近忙啥呢？", "你有孩子吗？", "你喜欢唱歌吗？"],
            "joins": ["{fact}。{q}", "{fact}呢，{q}", "说起来{fact}，{q}", "嗯嗯，{fact}。{q}"],
        },
    },
}


def generate(side: str, n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for lang, spec in SIDES[side].items():
        seen: set[str] = set()
        while len(seen) < n:
            fact, q, join = rng.choice(spec["facts"]), rng.choice(spec["questions"]), rng.choice(spec["joins"])
            text = join.format(fact=fact, Fact=fact[0].upper() + fact[1:], q=q, Q=q)
            if text not in seen:
                seen.add(text)
                rows.append({"text": text, "label": 0, "lang": lang, "kind": "persona_template"})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("side", choices=sorted(SIDES))
    ap.add_argument("--n", type=int, default=60, help="turns per language")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for row in generate(args.side, args.n, args.seed):
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
