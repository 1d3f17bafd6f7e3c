package transport

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitty/elicitty/internal/jsonrpcio"
)

// refuseMethod is the method of the stand-in handed to go-sdk in place of a server
// request dropped unread (tap.refuse): no client has it, so go-sdk answers it with an
// error, which the tap rewrites to say why the request was refused.
const refuseMethod = "elicitty/refused"

// refusedError is the error answering a server request dropped unread.
func refusedError(reason string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "elicitty refused the request unread: " + reason}
}

// droppedResponse is the local error answering a request whose response was dropped.
func droppedResponse(id jsonrpc.ID, reason string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: "elicitty dropped the server's response: " + reason,
	}}
}

// frameTooLarge is the reason given for a frame over jsonrpcio.MaxFrame.
func frameTooLarge() string {
	return fmt.Sprintf("message over the %d MiB frame limit", jsonrpcio.MaxFrame>>20)
}
