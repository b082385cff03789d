//! The one list of the open-weight text formats.
//!
//! Each entry is a group of formats that share their markers and are read by one parser and one
//! stream machine: the folder `formats/<module>/`, the `Group` variant, then one line per format
//! (its `Format` variant, its name, and the names other projects give it, accepted by
//! `format=` and `formats=`). Everything else is generated from this list by the callbacks
//! that read it: the `Format` and `Group` enums and the names (`protocol`), the module
//! declarations, the dispatch, the sniffing and stream marker tables (`formats`), and the
//! Python `toolwire.FORMATS`. Adding a format is one folder and one line here.
//!
//! Aliases are the peers' registry names: vLLM's `--tool-call-parser` names, SGLang's detector
//! names, llama.cpp's chat formats, LMDeploy's `--tool-call-parser` names and NVIDIA Dynamo's
//! tool-parser names, lower-cased (and Xinference's parser names and Llama's `ToolPromptFormat`
//! values, with `_` for `-` and `.`).

/// The peers' names that stand for a set of toolwire's names: what the peer's parser reads is
/// what these read together (`format="xlam"` is `formats=["raw_json", "mistral", "hermes"]`).
/// vLLM's xLAM parser takes xLAM's own bare or fenced JSON list, and the same list after
/// `[TOOL_CALLS]` or inside `<tool_call>…</tool_call>`. ERNIE 4.5 writes hermes's calls and,
/// thinking, wraps its answer in `<response>…</response>` as Granite does (vLLM's ernie45
/// reasoning parser drops those tags): its names read hermes and granite. `json` is the SGLang
/// model gateway's JSON parser (raw JSON) and mlx-swift-lm's `json` format (hermes's
/// `<tool_call>` JSON): it reads both. Functionary v3.1 (llama.cpp's
/// `functionary_v3_1_llama_3_1`) writes hermes's `<function=f>{…}</function>` and Llama 3.1's
/// `<|python_tag|>` code and end tokens: its names read hermes and llama3_json.
pub(crate) const SET_ALIASES: &[(&str, &[&str])] = &[
    ("xlam", &["raw_json", "mistral", "hermes"]),
    ("ernie45", &["hermes", "granite"]),
    ("ernie45_moe", &["hermes", "granite"]),
    ("ernie_x1", &["hermes", "granite"]),
    ("ernie_45_vl_thinking", &["hermes", "granite"]),
    ("json", &["raw_json", "hermes"]),
    ("functionary_v3_1", &["hermes", "llama3_json"]),
    ("functionary_v3_1_llama_3_1", &["hermes", "llama3_json"]),
];

/// The peers' names for a protocol of [`crate::protocol::Protocol::TEXT`]: llama.cpp's chat
/// format `Generic` is `llamacpp_generic`.
pub(crate) const TEXT_ALIASES: &[(&str, &str)] = &[("generic", "llamacpp_generic")];

macro_rules! for_each_group {
    ($callback:ident) => {
        $callback! {
            tool_call ToolCall [
                Hermes "hermes" [
                    "hermes2_pro", "qwen25", "qwen", "qwen2_5", "granite4", "granite_20b_fc",
                    "minicpm5", "qwen3", "qwen2d5",
                    "qwen2_5_coder", "qwen25_coder", "trinity", "hermes_2_pro", "json_tools",
                    "functionary", "exaone_moe", "hermes3", "function_tag", "qwen3_moe",
                    "kolibri1", "holo2", "nous", "qwen3_json",
                ],
                Qwen3Coder "qwen3_coder" [
                    "qwen3_xml", "qwen3coder", "qwen3_5", "step3p5", "mimo", "nemotron_v3",
                    "iquest_coder", "berrylm", "qwen3_coder_xml", "xiaomi_mimo", "qwen_xml",
                    "qwen_coder", "xml_function", "nemotron_nano", "step_35", "qwen35", "nemotron3",
                    "nemotron_3", "step5", "nanbeige", "minicpmv", "qwen35_coder",
                ],
                Glm45 "glm45" [
                    "glm4_moe", "glm", "glm47", "glm4_7", "ling3", "poolside_v1", "glm53",
                    "spark25", "spark", "glm_4_5", "glm45_moe", "glm47_moe", "laguna", "glm4",
                    "step_audio_2", "glm5",
                ],
                HyperclovaxSeedThink "hyperclovax_seed_think" [],
            ]
            mistral Mistral [
                Mistral "mistral" ["mistral_nemo", "magistral", "devstral"],
            ]
            llama3_json Llama3Json [
                Llama3Json "llama3_json" [
                    "llama3", "llama3_x", "llama4_json", "llama3_builtin", "llama_3_x",
                    "llama_3_x_with_builtin_tools", "llama",
                ],
            ]
            pythonic Pythonic [
                Pythonic "pythonic" ["llama4_pythonic", "python_list"],
                Sarashina "sarashina" [],
            ]
            granite_pythonic GranitePythonic [
                GranitePythonic "granite_pythonic" [],
            ]
            deepseek Deepseek [
                DeepseekV3 "deepseek_v3" ["deepseekv3", "deepseek_r1", "deepseek", "deepseek_v3_0324"],
                DeepseekV31 "deepseek_v31" ["deepseekv31", "deepseek_v3_1", "deepseek31", "deepseekv3_1"],
            ]
            kimi_k2 KimiK2 [
                KimiK2 "kimi_k2" ["kimik2", "kimik2_5"],
            ]
            kimi_k3 KimiK3 [
                KimiK3 "kimi_k3" [],
            ]
            harmony Harmony [
                Harmony "harmony" ["openai", "gpt_oss", "gptoss", "openai_gptoss"],
                MuseGlimmer "muse_glimmer" ["muse", "onyx", "atem", "musespark1x"],
            ]
            seed_oss SeedOss [
                SeedOss "seed_oss" [],
            ]
            gigachat3 Gigachat3 [
                Gigachat3 "gigachat3" [],
            ]
            gigachat35 Gigachat35 [
                Gigachat35 "gigachat35" [],
            ]
            longcat Longcat [
                Longcat "longcat" [],
            ]
            iquest_coder_v2 IquestCoderV2 [
                IquestCoderV2 "iquest_coder_v2" [],
            ]
            iquest_q1 IquestQ1 [
                IquestQ1 "iquest_q1" [],
            ]
            internlm2 Internlm2 [
                Internlm2 "internlm2" ["internlm", "intern_s1", "interns1"],
            ]
            dots Dots [
                Dots "dots" [],
            ]
            step3 Step3 [
                Step3 "step3" [],
            ]
            minimax_m2 MinimaxM2 [
                MinimaxM2 "minimax_m2" ["minimax_m2_5", "minimax_m2_append_think"],
            ]
            minimax_m3 MinimaxM3 [
                MinimaxM3 "minimax_m3" [],
            ]
            dsml Dsml [
                DeepseekDsml "deepseek_dsml" [
                    "deepseek_v32", "deepseekv32", "deepseek_v32_dsml", "deepseek_v4", "deepseekv4",
                    "deepseek_v41", "deepseekv41", "deepseek32", "deepseek_v3_2",
                ],
            ]
            json_list JsonList [
                Lfm2 "lfm2" ["lfm2_with_json_tools", "pangu", "openpangu_v2", "liquid"],
                Jamba "jamba" ["hunyuan_a13b", "apriel_1_5"],
                MinimaxM1 "minimax_m1" ["minimax"],
                HyV3 "hy_v3" ["hunyuan"],
                Nemotron "nemotron" ["nemotron_v2", "nemotron_json", "nemotron_deci"],
                Granite "granite" ["granite3"],
                Apertus "apertus" ["apertus2509"],
                CommandR7b "command_r7b" [
                    "command_a", "cohere_command3", "cohere_command4", "cohere", "cohere2_moe",
                ],
                CommandR "command_r" ["command_r_plus"],
                Olmo3 "olmo3" [],
                Phi4Mini "phi4_mini" ["phi4_mini_json", "firefunction_v2", "firefunction", "phi4"],
                HyperclovaxSeedThink14b "hyperclovax_seed_think_14b" [],
            ]
            inkling Inkling [
                Inkling "inkling" [],
            ]
            hy_v4 HyV4 [
                HyV4 "hy_v4" [],
            ]
            k2_horizon K2Horizon [
                K2Horizon "k2_horizon" ["k2_v3", "k2v3"],
            ]
            plamo3 Plamo3 [
                Plamo3 "plamo3" [],
            ]
            gemma Gemma [
                FunctionGemma "function_gemma" ["functiongemma", "gemma"],
                Gemma4 "gemma4" ["gemma_4"],
            ]
            functionary Functionary [
                FunctionaryV32 "functionary_v3_2" [],
            ]
            solar_open2 SolarOpen2 [
                SolarOpen2 "solar_open2" [],
            ]
            solar_open SolarOpen [
                SolarOpen "solar_open" [],
            ]
            rwkv Rwkv [
                Rwkv "rwkv" [],
            ]
            cwm Cwm [
                Cwm "cwm" [],
            ]
        }
    };
}

pub(crate) use for_each_group;
