package tabs

// Facts the errors of this package state (errs.Error.Fact), for layers that
// word the next step in their own vocabulary.
const (
	FactDialogOpen    = "dialog_open"     // a JavaScript dialog blocks the page
	FactManagedOnly   = "managed_only"    // storage state is the managed browser's alone
	FactNoPrint       = "no_print"        // the browser does not print to PDF over DevTools
	FactHeldByProcess = "held_by_process" // another tabwright process claims the tab
	FactHeldBySession = "held_by_session" // another session of this process claims the tab
	FactNoBrowser     = "no_browser"      // no browser has the id
	FactNoTab         = "no_tab"          // the browser has no page tab of the id
	FactUnknownHandle = "unknown_handle"  // the owner holds no tab of the handle
	FactDocumentLeft  = "document_left"   // the document a page call ran in went away (the frame navigated)
	FactNoWebMCP      = "no_webmcp"       // the browser offers pages no WebMCP (page tools)
	FactClaimsFolder  = "claims_folder"   // the folder of claims across processes is not this user's own
)
