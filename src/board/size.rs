//! A board size chosen at run time, checked against the registry of sizes ([`crate::bits`]).

use std::fmt;

/// A board size chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size {
    width: usize,
    height: usize,
}

impl Default for Size {
    fn default() -> Self {
        Size {
            width: 7,
            height: 6,
        }
    }
}

/// Why a board size was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    Syntax(String),
    Unsupported { width: usize, height: usize },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::Syntax(s) => write!(f, "bad board size '{s}': expected WxH, e.g. 7x6"),
            SizeError::Unsupported { width, height } => write!(
                f,
                "board size {width}x{height} is not supported: vier plays the {} sizes whose \
                 result is published and {} unsolved ones, 4 to {} columns and 4 to {} rows \
                 (protocol.md lists them)",
                crate::bits::SIZES.len() - crate::bits::UNSOLVED.len(),
                crate::bits::UNSOLVED.len(),
                crate::bits::MAX_WIDTH,
                crate::bits::MAX_HEIGHT
            ),
        }
    }
}

impl std::error::Error for SizeError {}

impl Size {
    pub fn new(width: usize, height: usize) -> Result<Size, SizeError> {
        if crate::bits::SIZES
            .iter()
            .any(|&(w, h, _)| (w, h) == (width, height))
        {
            Ok(Size { width, height })
        } else {
            Err(SizeError::Unsupported { width, height })
        }
    }

    /// Every supported size (the registry, [`crate::bits::SIZES`]), narrowest first.
    pub fn all() -> impl Iterator<Item = Size> {
        crate::bits::SIZES
            .iter()
            .map(|&(width, height, _)| Size { width, height })
    }

    /// The bits of this size's board type (64 or 128).
    pub fn bits(&self) -> u32 {
        crate::bits::SIZES
            .iter()
            .find(|&&(w, h, _)| (w, h) == (self.width, self.height))
            .map_or(64, |&(_, _, b)| b)
    }

    /// Whether the size's result with perfect play is published (`tests/data/sizes.md`); the
    /// others ([`crate::bits::UNSOLVED`]) are open problems, listed as unsolved.
    pub fn published(&self) -> bool {
        !crate::bits::UNSOLVED.contains(&(self.width, self.height))
    }

    pub fn width(&self) -> usize {
        self.width
    }
    pub fn height(&self) -> usize {
        self.height
    }
    pub fn cells(&self) -> usize {
        self.width * self.height
    }
}

impl std::str::FromStr for Size {
    type Err = SizeError;
    fn from_str(s: &str) -> Result<Size, SizeError> {
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| SizeError::Syntax(s.to_string()))?;
        let w = w
            .trim()
            .parse()
            .map_err(|_| SizeError::Syntax(s.to_string()))?;
        let h = h
            .trim()
            .parse()
            .map_err(|_| SizeError::Syntax(s.to_string()))?;
        Size::new(w, h)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}
