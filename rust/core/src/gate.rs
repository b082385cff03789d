//! Gateway policies on a stream of events: when a call is released, and what a call to a tool
//! that was not offered becomes.
//!
//! [`Gate`] is a filter between an event source (the stream engine, a provider stream
//! accumulator) and its consumer; the sources know nothing of it. It holds back what a policy
//! says must wait and renumbers the calls it lets through, so indices stay `0, 1, 2…` in the
//! order calls are released.
//!
//! * [`Release::Eager`]: a call's start and argument pieces go out as they arrive.
//! * [`Release::Complete`]: nothing of a call goes out before it ends; then its start, its whole
//!   arguments text (one piece) and its end. A call that fails goes out as its `Invalid` alone.
//! * [`Release::Valid`]: as `Complete`, and the arguments must also validate against the tool's
//!   schema; a call that does not is an `Invalid` (never a start).
//!
//! [`UnknownTools`] decides what a call to a name outside the tools offered becomes: kept,
//! an `Invalid` saying so (the call's start and pieces are held back), or dropped.

use crate::calls::{FailureKind, Invalid, Outcome, Protocol};
use crate::stream::Event;

/// When a call's events are released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    Eager,
    Complete,
    Valid,
}

impl Release {
    pub const NAMES: &'static str = "'eager', 'complete' or 'valid'";

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "eager" => Some(Self::Eager),
            "complete" => Some(Self::Complete),
            "valid" => Some(Self::Valid),
            _ => None,
        }
    }
}

/// What a call to a tool that was not offered becomes (only with tools given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownTools {
    Keep,
    Invalid,
    Drop,
}

impl UnknownTools {
    pub const NAMES: &'static str = "'keep', 'invalid' or 'drop'";

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "keep" => Some(Self::Keep),
            "invalid" => Some(Self::Invalid),
            "drop" => Some(Self::Drop),
            _ => None,
        }
    }
}

/// The tools offered, as the gate asks about them.
pub trait ToolCheck<V> {
    /// Whether a tool of this name was offered.
    fn offers(&self, name: &str) -> bool;
    /// What is wrong with a call's arguments (empty when they are valid).
    fn errors(&self, name: &str, arguments: &V) -> Vec<String>;
}

/// Both policies together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub release: Release,
    pub unknown_tools: UnknownTools,
}

impl Default for Policy {
    /// Today's behaviour: everything released as it arrives, every call kept.
    fn default() -> Self {
        Self {
            release: Release::Eager,
            unknown_tools: UnknownTools::Keep,
        }
    }
}

impl Policy {
    /// Whether the policy changes nothing (so the gate need not look at the events).
    pub fn is_transparent(&self) -> bool {
        *self == Self::default()
    }

    /// Why this policy cannot run without tools, if it cannot.
    pub fn needs_tools(&self) -> Option<&'static str> {
        if self.release == Release::Valid {
            Some("release='valid' validates arguments against tools=, which is missing")
        } else if self.unknown_tools != UnknownTools::Keep {
            Some("unknown_tools='invalid' or 'drop' needs tools= (the tools offered)")
        } else {
            None
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    /// Released as it arrives.
    Pass,
    /// Held until it ends.
    Hold,
    /// A call to a tool that was not offered.
    Unknown,
}

/// A call the gate has seen start.
#[derive(Debug)]
struct Slot {
    input: usize,
    /// The index it goes out under, once released.
    output: Option<usize>,
    fate: Fate,
    id: String,
    name: String,
    /// Arguments text held back.
    held: String,
}

/// The filter. One per stream; [`Gate::reset`] for the next message.
#[derive(Debug)]
pub struct Gate {
    policy: Policy,
    /// The `protocol` of the invalid calls the gate itself makes.
    protocol: Protocol,
    slots: Vec<Slot>,
    next_output: usize,
}

impl Gate {
    pub fn new(policy: Policy, protocol: Protocol) -> Self {
        Self {
            policy,
            protocol,
            slots: Vec::new(),
            next_output: 0,
        }
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn reset(&mut self) {
        self.slots.clear();
        self.next_output = 0;
    }

    /// Applies the policies to `events` in place. `tools` is `None` when no tools were given:
    /// then every name is taken as offered and nothing is validated.
    pub fn filter<V>(&mut self, events: &mut Vec<Event<V>>, tools: Option<&dyn ToolCheck<V>>) {
        if self.policy.is_transparent() || events.is_empty() {
            return;
        }
        let incoming = std::mem::take(events);
        for event in incoming {
            self.pass(event, tools, events);
        }
    }

    /// The policy on calls read whole (what `extract` and `parse_text` return): each goes
    /// through [`Gate::filter`] as the events a stream makes of it (its start, its arguments as
    /// `arguments_text` writes them, its end), so a call read whole meets the very rules a
    /// streamed one does.
    pub fn filter_outcomes<V>(
        &mut self,
        outcomes: Vec<Outcome<V>>,
        tools: Option<&dyn ToolCheck<V>>,
        arguments_text: impl Fn(&V) -> String,
    ) -> Vec<Outcome<V>> {
        if self.policy.is_transparent() {
            return outcomes;
        }
        let mut kept = Vec::with_capacity(outcomes.len());
        let mut events = Vec::new();
        for (index, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                Outcome::Call(call) => {
                    events.push(Event::CallStart {
                        index,
                        id: call.id.clone().unwrap_or_default(),
                        name: call.name.clone(),
                    });
                    events.push(Event::CallDelta {
                        index,
                        arguments: arguments_text(&call.arguments),
                    });
                    events.push(Event::CallEnd { index, call });
                }
                Outcome::Invalid(invalid) => events.push(Event::Invalid(*invalid)),
            }
            self.filter(&mut events, tools);
            kept.extend(events.drain(..).filter_map(|event| match event {
                Event::CallEnd { call, .. } => Some(Outcome::Call(call)),
                Event::Invalid(invalid) => Some(Outcome::invalid(invalid)),
                _ => None,
            }));
        }
        kept
    }

    fn slot(&mut self, input: usize) -> Option<usize> {
        self.slots.iter().position(|slot| slot.input == input)
    }

    fn claim_output(&mut self) -> usize {
        self.next_output += 1;
        self.next_output - 1
    }

    fn pass<V>(
        &mut self,
        event: Event<V>,
        tools: Option<&dyn ToolCheck<V>>,
        out: &mut Vec<Event<V>>,
    ) {
        match event {
            Event::CallStart { index, id, name } => {
                let offered = tools.is_none_or(|tools| tools.offers(&name));
                let fate = if !offered && self.policy.unknown_tools != UnknownTools::Keep {
                    Fate::Unknown
                } else if self.policy.release == Release::Eager {
                    Fate::Pass
                } else {
                    Fate::Hold
                };
                let output = (fate == Fate::Pass).then(|| self.claim_output());
                if let Some(output) = output {
                    out.push(Event::CallStart {
                        index: output,
                        id: id.clone(),
                        name: name.clone(),
                    });
                }
                self.slots.push(Slot {
                    input: index,
                    output,
                    fate,
                    id,
                    name,
                    held: String::new(),
                });
            }
            Event::CallDelta { index, arguments } => match self.slot(index) {
                Some(at) => {
                    let slot = &mut self.slots[at];
                    match (slot.fate, slot.output) {
                        (Fate::Pass, Some(output)) => out.push(Event::CallDelta {
                            index: output,
                            arguments,
                        }),
                        _ => slot.held.push_str(&arguments),
                    }
                }
                // Not announced: nothing to hold it for.
                None => out.push(Event::CallDelta { index, arguments }),
            },
            Event::CallEnd { index, call } => {
                let Some(at) = self.slot(index) else {
                    out.push(Event::CallEnd { index, call });
                    return;
                };
                let slot = self.slots.remove(at);
                match slot.fate {
                    Fate::Pass => out.push(Event::CallEnd {
                        index: slot.output.unwrap_or(index),
                        call,
                    }),
                    Fate::Unknown => {
                        if self.policy.unknown_tools == UnknownTools::Invalid {
                            let detail =
                                format!("tool '{}' is not among the tools offered", slot.name);
                            let invalid = self.invalid(slot, FailureKind::Parse, detail);
                            out.push(Event::Invalid(invalid));
                        }
                    }
                    Fate::Hold => {
                        let errors = match (self.policy.release, tools) {
                            (Release::Valid, Some(tools)) => {
                                tools.errors(&slot.name, &call.arguments)
                            }
                            _ => Vec::new(),
                        };
                        if errors.is_empty() {
                            let output = self.claim_output();
                            out.push(Event::CallStart {
                                index: output,
                                id: slot.id,
                                name: slot.name,
                            });
                            if !slot.held.is_empty() {
                                out.push(Event::CallDelta {
                                    index: output,
                                    arguments: slot.held,
                                });
                            }
                            out.push(Event::CallEnd {
                                index: output,
                                call,
                            });
                        } else {
                            let invalid =
                                self.invalid(slot, FailureKind::Arguments, errors.join(" "));
                            out.push(Event::Invalid(invalid));
                        }
                    }
                }
            }
            Event::Invalid(mut invalid) => {
                let slot = self.slot(invalid.index).map(|at| self.slots.remove(at));
                let unknown = match &slot {
                    Some(slot) => slot.fate == Fate::Unknown,
                    None => match (&invalid.name, tools) {
                        (Some(name), Some(tools)) => {
                            self.policy.unknown_tools != UnknownTools::Keep && !tools.offers(name)
                        }
                        _ => false,
                    },
                };
                if unknown && self.policy.unknown_tools == UnknownTools::Drop {
                    return;
                }
                invalid.index = match slot.and_then(|slot| slot.output) {
                    Some(output) => output,
                    None => self.claim_output(),
                };
                out.push(Event::Invalid(invalid));
            }
            text @ (Event::Text(_) | Event::Reasoning(_)) => out.push(text),
        }
    }

    /// The invalid call the gate makes of a held call.
    fn invalid(&mut self, slot: Slot, kind: FailureKind, detail: String) -> Invalid {
        let index = self.claim_output();
        Invalid {
            kind,
            protocol: self.protocol,
            index,
            subject: format!("tool call {index} ('{}')", slot.name),
            raw: slot.held,
            name: Some(slot.name),
            detail,
            byte_offset: None,
            line_column: None,
            offset: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::Call;

    type E = Event<u32>;

    struct Tools;

    impl ToolCheck<u32> for Tools {
        fn offers(&self, name: &str) -> bool {
            name != "unknown"
        }
        fn errors(&self, _: &str, arguments: &u32) -> Vec<String> {
            if *arguments == 0 {
                vec!["Arguments for tool 'f' are invalid.".to_owned()]
            } else {
                Vec::new()
            }
        }
    }

    fn call(index: usize, name: &str, arguments: u32) -> Vec<E> {
        vec![
            Event::CallStart {
                index,
                id: format!("id{index}"),
                name: name.to_owned(),
            },
            Event::CallDelta {
                index,
                arguments: "{".to_owned(),
            },
            Event::CallDelta {
                index,
                arguments: "}".to_owned(),
            },
            Event::CallEnd {
                index,
                call: Call {
                    id: Some(format!("id{index}")),
                    name: name.to_owned(),
                    arguments,
                },
            },
        ]
    }

    fn run(policy: Policy, events: Vec<E>) -> Vec<Vec<E>> {
        let mut gate = Gate::new(policy, Protocol::Native);
        events
            .into_iter()
            .map(|event| {
                let mut batch = vec![event];
                gate.filter(&mut batch, Some(&Tools));
                batch
            })
            .collect()
    }

    fn policy(release: Release, unknown_tools: UnknownTools) -> Policy {
        Policy {
            release,
            unknown_tools,
        }
    }

    #[test]
    fn eager_keep_changes_nothing() {
        let events = [call(0, "f", 1), call(1, "unknown", 1)].concat();
        let out: Vec<E> = run(Policy::default(), events.clone()).concat();
        assert_eq!(out, events);
    }

    #[test]
    fn complete_sends_nothing_of_a_call_before_its_end() {
        let out = run(
            policy(Release::Complete, UnknownTools::Keep),
            call(0, "f", 1),
        );
        assert!(out[..3].iter().all(Vec::is_empty));
        assert!(matches!(&out[3][1], Event::CallDelta { arguments, .. } if arguments == "{}"));
        assert_eq!(out[3].len(), 3);
    }

    #[test]
    fn valid_never_starts_an_invalid_call() {
        let out = run(policy(Release::Valid, UnknownTools::Keep), call(0, "f", 0)).concat();
        let [Event::Invalid(invalid)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(
            (invalid.raw.as_str(), invalid.kind),
            ("{}", FailureKind::Arguments)
        );
        assert!(invalid.message().contains("are invalid"));
    }

    #[test]
    fn calls_read_whole_meet_the_same_policy() {
        let outcomes = |names: &[&str]| -> Vec<Outcome<u32>> {
            names
                .iter()
                .map(|name| {
                    Outcome::Call(Call {
                        id: None,
                        name: (*name).to_owned(),
                        arguments: 7,
                    })
                })
                .collect()
        };
        let names = |kept: &[Outcome<u32>]| -> Vec<String> {
            kept.iter()
                .map(|outcome| match outcome {
                    Outcome::Call(call) => call.name.clone(),
                    Outcome::Invalid(invalid) => format!("invalid {}", invalid.raw),
                })
                .collect()
        };
        let read = |unknown_tools| {
            let mut gate = Gate::new(policy(Release::Eager, unknown_tools), Protocol::Native);
            let all = outcomes(&["f", "unknown", "g"]);
            names(&gate.filter_outcomes(all, Some(&Tools), |a| a.to_string()))
        };
        assert_eq!(read(UnknownTools::Keep), ["f", "unknown", "g"]);
        assert_eq!(read(UnknownTools::Drop), ["f", "g"]);
        assert_eq!(read(UnknownTools::Invalid), ["f", "invalid 7", "g"]);
    }

    #[test]
    fn unknown_tools_per_policy_and_renumbered() {
        let events = [call(0, "unknown", 1), call(1, "f", 1)].concat();
        let dropped = run(policy(Release::Eager, UnknownTools::Drop), events.clone()).concat();
        assert_eq!(
            dropped,
            call(0, "f", 1)
                .into_iter()
                .map(|e| match e {
                    Event::CallEnd { index, mut call } => {
                        call.id = Some("id1".into());
                        Event::CallEnd { index, call }
                    }
                    Event::CallStart { index, name, .. } => Event::CallStart {
                        index,
                        id: "id1".into(),
                        name
                    },
                    other => other,
                })
                .collect::<Vec<_>>()
        );
        let invalid = run(policy(Release::Eager, UnknownTools::Invalid), events).concat();
        let Event::Invalid(first) = &invalid[0] else {
            panic!("{invalid:?}")
        };
        assert_eq!((first.index, first.raw.as_str()), (0, "{}"));
        assert!(first
            .message()
            .contains("'unknown' is not among the tools offered"));
        assert!(matches!(invalid[1], Event::CallStart { index: 1, .. }));
    }
}
