package injected

// Fn names a page function the engine calls, __tabwright[fn]: the Go side
// of the bundle's interface, so a call names a constant the compiler knows,
// not a string. TestPageFunctionsInstalled (engine/act) evaluates the full
// bundle in Chromium and checks every Fn below is a function there.
type Fn string

// The page functions, by the script that installs them.
const (
	// find.js, check.js
	FnAnswer         Fn = "answer" // runs a call, answering {value} or {refused}
	FnHold           Fn = "hold"   // a handle for a node the engine holds
	FnByHandle       Fn = "byHandle"
	FnResolve        Fn = "resolve" // find, check and (then) act in one call
	FnReached        Fn = "reached"
	FnHeardMove      Fn = "heardMove"
	FnWatched        Fn = "watched"
	FnFrameElements  Fn = "frameElements"
	FnFrameInfo      Fn = "frameInfo"
	FnFrameOrigin    Fn = "frameOrigin"
	FnFrameStep      Fn = "frameStep"
	FnStableSelector Fn = "stableSelector"

	// act.js
	FnBorderBox       Fn = "borderBox"
	FnDomClick        Fn = "domClick"
	FnDragStarted     Fn = "dragStarted"
	FnFillStart       Fn = "fillStart"
	FnFocus           Fn = "focus"
	FnFocusedEditable Fn = "focusedEditable"
	FnIsFocused       Fn = "isFocused"
	FnReadControl     Fn = "readControl"
	FnReadValue       Fn = "readValue"
	FnScrollPos       Fn = "scrollPos"
	FnScrollStep      Fn = "scrollStep"
	FnSelectMany      Fn = "selectMany"
	FnSelectOption    Fn = "selectOption"
	FnSetValue        Fn = "setValue"
	FnTextInView      Fn = "textInView"
	FnValueIs         Fn = "valueIs"
	FnWaitFor         Fn = "waitFor"
	FnWatchDragStart  Fn = "watchDragStart"

	// observe.js, watch.js
	FnObserve        Fn = "observe"
	FnWatchedObserve Fn = "watchedObserve"
)

// Fns lists every page function the engine calls.
var Fns = []Fn{
	FnAnswer, FnHold, FnByHandle, FnResolve, FnReached, FnHeardMove, FnWatched,
	FnFrameElements, FnFrameInfo, FnFrameOrigin, FnFrameStep, FnStableSelector,
	FnBorderBox, FnDomClick, FnDragStarted, FnFillStart, FnFocus, FnFocusedEditable, FnIsFocused,
	FnReadControl, FnReadValue, FnScrollPos, FnScrollStep, FnSelectMany, FnSelectOption, FnSetValue,
	FnTextInView, FnValueIs, FnWaitFor, FnWatchDragStart,
	FnObserve, FnWatchedObserve,
}
