//! The library's typed errors.
//!
//! Every fallible function of the library returns [`Result`]; the binary (or the Python
//! module, or the server) decides what each [`Error`] kind means to its user: an exit status,
//! an exception, an HTTP status. Messages speak the library's words ("the cell size", "m"),
//! never a command-line flag's. An error about one of a job's inputs names it by type
//! ([`Input`], in [`Error::BadInput`] and [`Error::Conflict`]), so that each face can word the
//! name its own way ([`Error::worded`]): `--scale` on the command line, `scale` in Python.
//!
//! Tests: tests/faults/status.rs (every exit status), tests/faults/numbers.rs (messages for bad
//! numbers).

/// The library's typed error: every fallible function of `chocolate`, `pass`, `chomp`,
/// `render` and `gpu` returns [`Result`], and the binary (or the Python module, or the server)
/// decides what each kind means to its user: an exit status, an exception, an HTTP status.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An argument outside its allowed values, e.g. `m must be at least 1 (got 0)`.
    #[error("{what} must be {allowed} (got {value})")]
    BadArgument {
        /// What the argument is, in the library's words ("m", "the window", "the scale").
        what: String,
        /// The value given.
        value: String,
        /// What is allowed ("at least 1", "inside C(11,11)").
        allowed: String,
    },
    /// Input that is malformed or inconsistent in a way a range cannot say.
    #[error("{0}")]
    Invalid(String),
    /// A job larger than what can hold it: memory, u64 or u128 arithmetic, a PNG, a binding.
    #[error("{what} is too large: {needed}")]
    TooLarge {
        /// What is too large.
        what: String,
        /// What it would need, and what there is.
        needed: String,
    },
    /// An I/O error on a named path.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A verification ran and found a disagreement; the message names the first one.
    #[error("{0}")]
    CheckFailed(String),
    /// A GPU was required and none could be had; the message says why.
    #[error("no GPU: {0}")]
    NoAdapter(String),
    /// The GPU driver reported an error (validation, out of memory, lost device).
    #[error("GPU: {0}")]
    Gpu(String),
    /// The work was stopped by an interrupt (Ctrl-C, SIGTERM) before it finished.
    #[error("interrupted")]
    Interrupted,
    /// An input of a job outside its allowed values: `the cell size must be at least 1 (got
    /// 0)`; a face names the input its own way ([`Error::worded`]).
    #[error("{input} must be {allowed} (got {value})")]
    BadInput {
        /// Which input.
        input: Input,
        /// The value given.
        value: String,
        /// What is allowed ("at least 1", "a positive multiple of 8").
        allowed: String,
    },
    /// Inputs that cannot be used as given (together, or one without another): `message`
    /// says why, with `{0}`, `{1}`, … where the names of `inputs` go.
    #[error("{}", fill(message, inputs, &|i: Input| i.to_string()))]
    Conflict {
        /// The inputs, in the order `message` refers to them.
        inputs: Vec<Input>,
        /// The reason, with `{k}` for the name of `inputs[k]`.
        message: String,
    },
}

/// An input of a job, by what it is rather than by how a face spells it: the binary calls
/// [`Input::Fit`] `--fit`, the Python module `fit`, the library "the fit size".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Input {
    /// The window of the bar drawn or counted.
    Window,
    /// Pixels per cell of a picture of the P-grid.
    CellSize,
    /// The fitted picture's longer side, in pixels.
    Fit,
    /// How a fitted picture is shaded.
    Shade,
    /// The two colours of a picture.
    Colours,
    /// The side of a tile (Deep Zoom, tile shards).
    TileSize,
    /// The picture file written.
    Output,
    /// The Deep Zoom pyramid's directory.
    Dzi,
    /// The tile directory of shards.
    Tiles,
    /// Which shard of the tiles.
    Shard,
    /// Rows of positions of a Chomp picture (2 or 3).
    PlaneRows,
    /// The first row of a Chomp plane.
    FirstRow,
    /// Pixels per position of a Chomp picture.
    PixelsPerPosition,
    /// Pixels per cell of an octahedron cross-section.
    SectionScale,
    /// The height M of an octahedron cross-section.
    SectionHeight,
    /// The method of a count.
    Method,
    /// Where to compute: auto, gpu or cpu.
    Backend,
    /// The function F of CB(F), in the expression language.
    Expression,
    /// The game with a pass (of CB(F)).
    Pass,
    /// The number of players of multiplayer Chomp.
    Players,
    /// A claim of a registry, by name.
    Claim,
    /// The memory a table run may take.
    Memory,
    /// A share of a wave of pieces.
    Part,
    /// The bytes of one Grundy value.
    ValueBytes,
    /// The engine that computes a table.
    Engine,
    /// The largest heap size of Nim with a pass.
    HeapSize,
    /// The largest number of cells of a table by cells.
    MaxCells,
    /// The largest number of cells of a list of partitions.
    ListedCells,
    /// The steps of the automaton.
    Steps,
    /// The side N of the G_P table.
    GpSide,
}

impl Input {
    /// The library's words for the input: "the cell size", "the fit size".
    pub fn library_name(self) -> &'static str {
        match self {
            Input::Window => "the window",
            Input::CellSize => "the cell size",
            Input::Fit => "the fit size",
            Input::Shade => "the shade",
            Input::Colours => "the colours",
            Input::TileSize => "the tile size",
            Input::Output => "the output file",
            Input::Dzi => "the Deep Zoom directory",
            Input::Tiles => "the tile directory",
            Input::Shard => "the shard",
            Input::PlaneRows => "the number of rows",
            Input::FirstRow => "the first row of a plane",
            Input::PixelsPerPosition => "the pixels per position",
            Input::SectionScale => "the pixels per cell",
            Input::SectionHeight => "the section height M",
            Input::Method => "the method",
            Input::Backend => "the backend",
            Input::Expression => "F",
            Input::Pass => "the pass",
            Input::Players => "the number of players",
            Input::Claim => "the claim",
            Input::Memory => "the memory",
            Input::Part => "a part",
            Input::ValueBytes => "the value width",
            Input::Engine => "the engine",
            Input::HeapSize => "the largest heap size",
            Input::MaxCells => "the largest number of cells",
            Input::ListedCells => "the largest number of cells listed",
            Input::Steps => "the number of automaton steps",
            Input::GpSide => "the G_P table side",
        }
    }
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.library_name())
    }
}

/// `message` with `{k}` replaced by the name of `inputs[k]`.
fn fill(message: &str, inputs: &[Input], name: &dyn Fn(Input) -> String) -> String {
    let mut out = message.to_string();
    for (k, &input) in inputs.iter().enumerate() {
        out = out.replace(&format!("{{{k}}}"), &name(input));
    }
    out
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::BadArgument`] from anything displayable.
    pub fn bad_argument(
        what: impl Into<String>,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> Error {
        Error::BadArgument {
            what: what.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// [`Error::Invalid`] from anything displayable.
    pub fn invalid(message: impl std::fmt::Display) -> Error {
        Error::Invalid(message.to_string())
    }

    /// [`Error::TooLarge`].
    pub fn too_large(what: impl Into<String>, needed: impl std::fmt::Display) -> Error {
        Error::TooLarge {
            what: what.into(),
            needed: needed.to_string(),
        }
    }

    /// [`Error::BadInput`] from anything displayable.
    pub fn bad_input(
        input: Input,
        value: impl std::fmt::Display,
        allowed: impl Into<String>,
    ) -> Error {
        Error::BadInput {
            input,
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }

    /// [`Error::Conflict`]: `message` with `{k}` for the name of `inputs[k]`.
    pub fn conflict(inputs: &[Input], message: impl Into<String>) -> Error {
        Error::Conflict {
            inputs: inputs.to_vec(),
            message: message.into(),
        }
    }

    /// The message with every [`Input`] it names worded by `name` (a face's words: a flag, a
    /// keyword argument, a query parameter); other errors as they display.
    pub fn worded(&self, name: &dyn Fn(Input) -> String) -> String {
        match self {
            Error::BadInput {
                input,
                value,
                allowed,
            } => format!("{} must be {allowed} (got {value})", name(*input)),
            Error::Conflict { inputs, message } => fill(message, inputs, name),
            e => e.to_string(),
        }
    }

    /// The input an error is about, if it names one.
    pub fn input(&self) -> Option<Input> {
        match self {
            Error::BadInput { input, .. } => Some(*input),
            Error::Conflict { inputs, .. } => inputs.first().copied(),
            _ => None,
        }
    }

    /// [`Error::Io`] for `path`.
    pub fn io(path: impl Into<std::path::PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
