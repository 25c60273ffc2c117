//! How a setting is declared: its name, its type with default and range, and the action that
//! applies a value, in one declaration (the engine's table is [`super::settings::OPTIONS`]).
//! A setting cannot be declared without its action, nor with an action of another type: both
//! fail to compile. Checking a value yields the error message the protocol prints (other front
//! ends word it their way from [`RangeError`]), and an action never sees an unchecked value.

/// An option's type, default and range as UCI lists them, and its action on the engine `T`.
/// An action that fails returns the message to print; it must then have changed nothing.
pub enum Kind<T> {
    Spin {
        spin: Spin,
        set: fn(&mut T, u64) -> Result<(), String>,
    },
    Check {
        default: bool,
        set: fn(&mut T, bool) -> Result<(), String>,
    },
    Button {
        press: fn(&mut T) -> Result<(), String>,
    },
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
        /// Called with the value in the declaration's spelling.
        set: fn(&mut T, &'static str) -> Result<(), String>,
    },
    /// A string; `<empty>` stands for the empty string, as UCI GUIs write it.
    Text {
        default: &'static str,
        set: fn(&mut T, &str) -> Result<(), String>,
    },
}

/// One option of the engine `T`.
pub struct OptionDecl<T> {
    pub name: &'static str,
    pub kind: Kind<T>,
}

/// The text UCI GUIs send for an empty string.
pub const EMPTY: &str = "<empty>";

/// A whole number outside a setting's range, as every front end is told it: the setting's
/// range, one for all of them, and the number given (as given: it may be negative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeError {
    pub min: u64,
    pub max: u64,
    pub given: i128,
}

impl std::fmt::Display for RangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "must be {}..={}, not {}", self.min, self.max, self.given)
    }
}

/// A whole-number setting's name (as the protocol lists it), default and range: the one range
/// every front end checks it against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    pub name: &'static str,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

impl Spin {
    /// `given` if it is in range, or why not.
    pub fn check(&self, given: i128) -> Result<u64, RangeError> {
        if (self.min as i128..=self.max as i128).contains(&given) {
            Ok(given as u64)
        } else {
            Err(RangeError {
                min: self.min,
                max: self.max,
                given,
            })
        }
    }

    /// A number written as text (an argument on the command line), checked.
    pub fn parse(&self, text: &str) -> Result<u64, String> {
        let n: i128 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{text}' is not a whole number"))?;
        self.check(n).map_err(|e| e.to_string())
    }

    /// [`Spin::check`] with the error in words, `label` naming the value as the caller knows it
    /// (`threads must be 1..=64, not 0`).
    pub fn check_as(&self, label: &str, given: i128) -> Result<u64, String> {
        self.check(given).map_err(|e| format!("{label} {e}"))
    }
}

/// The declaration of `name` in `table` (case-insensitive).
pub fn find<'a, T>(table: &'a [OptionDecl<T>], name: &str) -> Option<&'a OptionDecl<T>> {
    table.iter().find(|o| o.name.eq_ignore_ascii_case(name))
}

impl<T> OptionDecl<T> {
    /// The declaration of a whole-number setting: its name is the spin's.
    pub const fn spin(spin: Spin, set: fn(&mut T, u64) -> Result<(), String>) -> OptionDecl<T> {
        OptionDecl {
            name: spin.name,
            kind: Kind::Spin { spin, set },
        }
    }

    /// The `option name ...` line of the `uci` listing.
    pub fn uci_line(&self) -> String {
        let name = self.name;
        match &self.kind {
            Kind::Spin { spin, .. } => format!(
                "option name {name} type spin default {} min {} max {}",
                spin.default, spin.min, spin.max
            ),
            Kind::Check { default, .. } => {
                format!("option name {name} type check default {default}")
            }
            Kind::Button { .. } => format!("option name {name} type button"),
            Kind::Combo { default, vars, .. } => {
                let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                format!("option name {name} type combo default {default}{vars}")
            }
            Kind::Text { default, .. } => {
                format!("option name {name} type string default {default}")
            }
        }
    }

    /// The default as `setoption` would send it (empty for a button).
    pub fn default_value(&self) -> String {
        match &self.kind {
            Kind::Spin { spin, .. } => spin.default.to_string(),
            Kind::Check { default, .. } => default.to_string(),
            Kind::Button { .. } => String::new(),
            Kind::Combo { default, .. } | Kind::Text { default, .. } => default.to_string(),
        }
    }

    /// Checks a `setoption` value (trimmed; `None` when the command had no `value`) and applies
    /// it to `target` with the option's action; otherwise the error to print, nothing changed.
    pub fn set(&self, target: &mut T, value: Option<&str>) -> Result<(), String> {
        let name = self.name;
        let value = value.map(str::trim);
        match &self.kind {
            Kind::Spin { spin, set } => {
                let (min, max) = (spin.min, spin.max);
                let v = value
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| format!("option {name} needs a value {min}..{max}"))?;
                match v.parse::<i128>().ok().map(|n| spin.check(n)) {
                    Some(Ok(n)) => set(target, n),
                    _ => Err(format!(
                        "bad value '{v}' for option {name}: expected a number {min}..{max}"
                    )),
                }
            }
            Kind::Check { set, .. } => match value.map(str::to_ascii_lowercase).as_deref() {
                Some("true") => set(target, true),
                Some("false") => set(target, false),
                _ => Err(format!(
                    "bad value '{}' for option {name}: expected true or false",
                    value.unwrap_or("")
                )),
            },
            Kind::Button { press } => press(target),
            Kind::Combo { vars, set, .. } => {
                let v = value.unwrap_or("");
                match vars.iter().find(|x| x.eq_ignore_ascii_case(v)) {
                    Some(x) => set(target, x),
                    None => Err(format!(
                        "unsupported variant '{v}': only {}",
                        vars.join(", ")
                    )),
                }
            }
            Kind::Text { set, .. } => {
                let v = value.unwrap_or("");
                set(target, if v == EMPTY { "" } else { v })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the test table's actions record.
    #[derive(Default, Debug, PartialEq)]
    struct Seen(Vec<String>);

    const TABLE: &[OptionDecl<Seen>] = &[
        OptionDecl {
            name: "Hash",
            kind: Kind::Spin {
                spin: Spin {
                    name: "Hash",
                    default: 16,
                    min: 2,
                    max: 64,
                },
                set: |s, n| {
                    s.0.push(format!("hash {n}"));
                    Ok(())
                },
            },
        },
        OptionDecl {
            name: "UCI_ShowWDL",
            kind: Kind::Check {
                default: false,
                set: |s, b| {
                    s.0.push(format!("wdl {b}"));
                    Ok(())
                },
            },
        },
        OptionDecl {
            name: "Clear Hash",
            kind: Kind::Button {
                press: |s| {
                    s.0.push("clear".into());
                    Ok(())
                },
            },
        },
        OptionDecl {
            name: "UCI_Variant",
            kind: Kind::Combo {
                default: "cfour",
                vars: &["cfour"],
                set: |s, v| {
                    s.0.push(format!("variant {v}"));
                    Ok(())
                },
            },
        },
        OptionDecl {
            name: "BookFile",
            kind: Kind::Text {
                default: EMPTY,
                set: |s, v| {
                    if v == "refused" {
                        return Err("refused by the action".into());
                    }
                    s.0.push(format!("file '{v}'"));
                    Ok(())
                },
            },
        },
    ];

    fn set(name: &str, value: Option<&str>) -> (Result<(), String>, Vec<String>) {
        let mut seen = Seen::default();
        let r = find(TABLE, name).expect("declared").set(&mut seen, value);
        (r, seen.0)
    }

    #[test]
    fn options_are_found_in_any_case() {
        assert!(std::ptr::eq(find(TABLE, "clear HASH").unwrap(), &TABLE[2]));
        assert!(find(TABLE, "no such option").is_none());
    }

    #[test]
    fn checked_values_reach_the_action_and_bad_ones_never_do() {
        assert_eq!(set("hash", Some(" 64 ")), (Ok(()), vec!["hash 64".into()]));
        for bad in [Some("1"), Some("65"), Some("lots"), None] {
            let (r, seen) = set("hash", bad);
            assert!(r.is_err() && seen.is_empty(), "{bad:?}");
        }
        assert_eq!(set("uci_showwdl", Some("TRUE")).1, ["wdl true"]);
        assert!(set("uci_showwdl", Some("yes")).0.is_err());
        assert_eq!(set("UCI_Variant", Some("CFour")).1, ["variant cfour"]);
        assert!(set("UCI_Variant", Some("chess")).1.is_empty());
        assert_eq!(set("Clear Hash", None).1, ["clear"]);
        assert_eq!(set("BookFile", Some("<empty>")).1, ["file ''"]);
        assert_eq!(set("BookFile", None).1, ["file ''"]);
        assert_eq!(
            set("BookFile", Some("refused")).0,
            Err("refused by the action".into())
        );
    }

    #[test]
    fn listing_lines_give_type_default_and_range() {
        let lines: Vec<String> = TABLE.iter().map(|o| o.uci_line()).collect();
        assert_eq!(
            lines,
            [
                "option name Hash type spin default 16 min 2 max 64",
                "option name UCI_ShowWDL type check default false",
                "option name Clear Hash type button",
                "option name UCI_Variant type combo default cfour var cfour",
                "option name BookFile type string default <empty>",
            ]
        );
    }
}
