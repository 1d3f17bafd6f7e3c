package desc

import "github.com/elicitty/elicitty/tree"

// Kind is the JSON type of a Node.
type Kind = tree.Kind

// The JSON types a document node can have.
const (
	KindNull   = tree.KindNull
	KindBool   = tree.KindBool
	KindNumber = tree.KindNumber
	KindString = tree.KindString
	KindArray  = tree.KindArray
	KindObject = tree.KindObject
)

// Location is a 1-based line and column in the source file.
type Location = tree.Location

// Node is one value of a loaded document, JSON or YAML alike, with its position (the
// tree package's node: object members keep their source order).
type Node = tree.Node
