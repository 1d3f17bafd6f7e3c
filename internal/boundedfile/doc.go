// Package boundedfile reads the local files elicitty parses (config files, other
// clients' configs, answers files, schemas, descriptions, the folder-trust store) with
// bounds a hostile file cannot get past:
//
//   - only a regular file is read: a FIFO, device, socket or directory, or a symlink to
//     one, is refused by name, without opening it in a way that could block (the path
//     is checked with Stat first, opened with O_NONBLOCK, and checked again with Fstat
//     on the open file);
//   - the size is capped before reading (Fstat) and while reading (the file may grow);
//   - Nesting scans the bytes for bracket nesting before a parser that recurses
//     (hujson, yaml.v3, go-toml) sees them, so a file of ten million "[" is a clean
//     error and not a stack overflow.
//
// Its errors name the path and what is wrong; they never quote the file's content. It
// owns no parsing and imports nothing of elicitty's.
package boundedfile
