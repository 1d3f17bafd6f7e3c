package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// DefaultMax is the size cap of Read when max is zero or less: 4 MiB, far above any
// real config or answers file.
const DefaultMax = 4 << 20

// The reasons Read refuses a file; the errors it returns wrap one of them (or the
// error of the system call, such as fs.ErrNotExist).
var (
	// ErrNotRegular is a path that is not a regular file (a FIFO, device, socket or
	// directory, or a symlink to one).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file larger than the cap.
	ErrTooLarge = errors.New("file too large")
	// ErrTooDeep is a document nested deeper than the cap (see Nesting).
	ErrTooDeep = errors.New("nested too deeply")
)

// Error is a file Read or Nesting refused. Its message names the path and the reason,
// never the file's content. The zero value is an empty error.
type Error struct {
	// Path is the file as given.
	Path string
	// Line is the 1-based line the problem is on; zero when it is the whole file.
	Line int
	// Msg says what is wrong ("is a named pipe (FIFO), not a regular file").
	Msg string
	// Err is ErrNotRegular, ErrTooLarge or ErrTooDeep.
	Err error
}

// Error returns "path msg", or "path:line: msg" when the line is known.
func (e *Error) Error() string {
	if e.Line > 0 {
		return e.Path + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.Path + " " + e.Msg
}

// Unwrap returns the reason.
func (e *Error) Unwrap() error { return e.Err }

// Read returns the content of the regular file at path, at most max bytes (DefaultMax
// when max <= 0). A symlink is followed to a regular file only. It never blocks on a
// FIFO or device and never reads more than max+1 bytes, whatever the file is.
func Read(path string, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMax
	}
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	st := lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(path); err != nil {
			return nil, err
		}
	}
	if err := check(path, lst, st, max); err != nil {
		return nil, err
	}
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have changed between Stat and open: check what was opened.
	fst, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(path, lst, fst, max); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, max)
	}
	return data, nil
}

// check refuses a file that is not regular or is larger than max; lst is what the path
// itself is (a symlink or not), st what it leads to.
func check(path string, lst, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		what := "is " + Kind(st.Mode())
		if lst.Mode()&fs.ModeSymlink != 0 {
			what = "is a symlink to " + Kind(st.Mode())
		}
		return &Error{Path: path, Msg: what + ", not a regular file", Err: ErrNotRegular}
	}
	if st.Size() > max {
		return tooLarge(path, max)
	}
	return nil
}

func tooLarge(path string, max int64) error {
	return &Error{Path: path, Msg: "is larger than " + Size(max), Err: ErrTooLarge}
}

// Size words a byte count as the caps are written: "4 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Kind names the type of a file that is not a regular file ("a named pipe (FIFO)", "a
// symbolic link", ...), or returns "" for a regular one: the one wording of every
// refusal of a special file, on read and on write.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return fmt.Sprintf("a special file (%s)", m.Type())
}
