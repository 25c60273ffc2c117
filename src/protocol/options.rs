//! The engine's options, declared once: [`OPTIONS`] prints the `uci` listing, checks every
//! `setoption` value, and is what protocol.md's option table documents (a test compares them).
//!
//! A declaration gives the name, the type with its default and range, and which [`Opt`] the
//! engine applies; checking a value yields a typed [`Value`] or the error message the protocol
//! prints, and the engine never sees an unchecked value.

/// Which option a declaration is, for the engine to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Hash,
    Threads,
    ClearHash,
    MoveOverhead,
    MultiPv,
    ShowWdl,
    Width,
    Height,
    Variant,
    OwnBook,
    BookFile,
    SearchLevel,
    // strength levels (crate::levels)
    LimitStrength,
    Elo,
    Skill,
    LevelSeed,
}

/// An option's type, default and range, as UCI lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Spin {
        default: u64,
        min: u64,
        max: u64,
    },
    Check {
        default: bool,
    },
    Button,
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
    },
    /// A string; `<empty>` stands for the empty string, as UCI GUIs write it.
    Text {
        default: &'static str,
    },
}

/// One option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    pub opt: Opt,
    pub name: &'static str,
    pub kind: Kind,
}

/// A checked value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Spin(u64),
    Check(bool),
    Button,
    /// A combo's value in the declaration's spelling.
    Combo(&'static str),
    /// `<empty>` is given as "".
    Text(String),
}

pub use crate::search::DEFAULT_HASH_MB;
/// As Stockfish: the spin's limit is not the machine's; a size the machine has not got is
/// refused when it is set.
pub const MAX_HASH_MB: usize = 1 << 25;
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 10;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
/// The text UCI GUIs send for an empty string.
pub const EMPTY: &str = "<empty>";

/// Every option, in the order `uci` lists them.
pub const OPTIONS: &[OptionDecl] = &[
    OptionDecl {
        opt: Opt::Hash,
        name: "Hash",
        kind: Kind::Spin {
            default: DEFAULT_HASH_MB as u64,
            min: 2,
            max: MAX_HASH_MB as u64,
        },
    },
    OptionDecl {
        opt: Opt::Threads,
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: crate::solver::MAX_THREADS as u64,
        },
    },
    OptionDecl {
        opt: Opt::ClearHash,
        name: "Clear Hash",
        kind: Kind::Button,
    },
    OptionDecl {
        opt: Opt::MoveOverhead,
        name: "MoveOverhead",
        kind: Kind::Spin {
            default: DEFAULT_MOVE_OVERHEAD_MS,
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS,
        },
    },
    OptionDecl {
        opt: Opt::MultiPv,
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 9,
        },
    },
    OptionDecl {
        opt: Opt::ShowWdl,
        name: "UCI_ShowWDL",
        kind: Kind::Check { default: false },
    },
    OptionDecl {
        opt: Opt::Width,
        name: "Width",
        kind: Kind::Spin {
            default: 7,
            min: 4,
            max: 9,
        },
    },
    OptionDecl {
        opt: Opt::Height,
        name: "Height",
        kind: Kind::Spin {
            default: 6,
            min: 4,
            max: 9,
        },
    },
    OptionDecl {
        opt: Opt::Variant,
        name: "UCI_Variant",
        kind: Kind::Combo {
            default: "cfour",
            vars: &["cfour"],
        },
    },
    OptionDecl {
        opt: Opt::OwnBook,
        name: "OwnBook",
        kind: Kind::Check { default: true },
    },
    OptionDecl {
        opt: Opt::BookFile,
        name: "BookFile",
        kind: Kind::Text { default: EMPTY },
    },
    // For the study (tools/study.py) only: the lecture's techniques one at a time, see
    // crate::ablation. The default is the full engine.
    OptionDecl {
        opt: Opt::SearchLevel,
        name: "SearchLevel",
        kind: Kind::Spin {
            default: crate::ablation::FULL as u64,
            min: crate::ablation::MINIMAX as u64,
            max: crate::ablation::FULL as u64,
        },
    },
    // Strength levels (crate::levels): a weaker player for people, chosen after the search.
    OptionDecl {
        opt: Opt::LimitStrength,
        name: "UCI_LimitStrength",
        kind: Kind::Check { default: false },
    },
    OptionDecl {
        opt: Opt::Elo,
        name: "UCI_Elo",
        kind: Kind::Spin {
            default: crate::levels::ELO[crate::levels::ELO.len() - 1] as u64,
            min: crate::levels::ELO[0] as u64,
            max: crate::levels::ELO[crate::levels::ELO.len() - 1] as u64,
        },
    },
    OptionDecl {
        opt: Opt::Skill,
        name: "Skill Level",
        kind: Kind::Spin {
            default: crate::levels::FULL_SKILL,
            min: 1,
            max: crate::levels::FULL_SKILL,
        },
    },
    OptionDecl {
        opt: Opt::LevelSeed,
        name: "LevelSeed",
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: u32::MAX as u64,
        },
    },
];

/// The declaration of `name` (case-insensitive).
pub fn find(name: &str) -> Option<&'static OptionDecl> {
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name))
}

impl OptionDecl {
    /// The `option name ...` line of the `uci` listing.
    pub fn uci_line(&self) -> String {
        let name = self.name;
        match self.kind {
            Kind::Spin { default, min, max } => {
                format!("option name {name} type spin default {default} min {min} max {max}")
            }
            Kind::Check { default } => format!("option name {name} type check default {default}"),
            Kind::Button => format!("option name {name} type button"),
            Kind::Combo { default, vars } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {name} type combo default {default}{vars}")
            }
            Kind::Text { default } => format!("option name {name} type string default {default}"),
        }
    }

    /// Checks a `setoption` value (trimmed; `None` when the command had no `value`).
    pub fn check(&self, value: Option<&str>) -> Result<Value, String> {
        let name = self.name;
        let value = value.map(str::trim);
        match self.kind {
            Kind::Spin { min, max, .. } => {
                let v = value
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("option {name} needs a value {min}..{max}"))?;
                match v.parse::<u64>() {
                    Ok(n) if (min..=max).contains(&n) => Ok(Value::Spin(n)),
                    _ => Err(format!(
                        "bad value '{v}' for option {name}: expected a number {min}..{max}"
                    )),
                }
            }
            Kind::Check { .. } => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => Ok(Value::Check(true)),
                Some("false") => Ok(Value::Check(false)),
                _ => Err(format!(
                    "bad value '{}' for option {name}: expected true or false",
                    value.unwrap_or("")
                )),
            },
            Kind::Button => Ok(Value::Button),
            Kind::Combo { vars, .. } => {
                let v = value.unwrap_or("");
                match vars.iter().find(|x| x.eq_ignore_ascii_case(v)) {
                    Some(x) => Ok(Value::Combo(x)),
                    None => Err(format!(
                        "unsupported variant '{v}': only {}",
                        vars.join(", ")
                    )),
                }
            }
            Kind::Text { .. } => {
                let v = value.unwrap_or("");
                Ok(Value::Text(if v == EMPTY { "" } else { v }.to_string()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_in_any_case() {
        for o in OPTIONS {
            assert_eq!(find(&o.name.to_ascii_uppercase()), Some(o));
            assert_eq!(OPTIONS.iter().filter(|x| x.opt == o.opt).count(), 1);
        }
        assert_eq!(find("no such option"), None);
    }

    #[test]
    fn checks_values_by_type() {
        let hash = find("hash").unwrap();
        assert_eq!(hash.check(Some(" 64 ")), Ok(Value::Spin(64)));
        assert!(hash.check(Some("1")).is_err());
        assert!(hash.check(Some("lots")).is_err());
        assert!(hash.check(None).is_err());
        let wdl = find("UCI_ShowWDL").unwrap();
        assert_eq!(wdl.check(Some("TRUE")), Ok(Value::Check(true)));
        assert!(wdl.check(Some("yes")).is_err());
        let variant = find("UCI_Variant").unwrap();
        assert_eq!(variant.check(Some("CFour")), Ok(Value::Combo("cfour")));
        assert!(variant.check(Some("chess")).is_err());
        let file = find("BookFile").unwrap();
        assert_eq!(file.check(Some("<empty>")), Ok(Value::Text(String::new())));
        assert_eq!(file.check(None), Ok(Value::Text(String::new())));
    }

    #[test]
    fn defaults_pass_their_own_check() {
        for o in OPTIONS {
            let default = match o.kind {
                Kind::Spin { default, .. } => default.to_string(),
                Kind::Check { default } => default.to_string(),
                Kind::Button => String::new(),
                Kind::Combo { default, .. } | Kind::Text { default } => default.to_string(),
            };
            assert!(o.check(Some(&default)).is_ok(), "{}", o.name);
        }
    }
}
