// placeholder so ragscope_ui has a source until the shell lands
namespace ragscope::ui { int placeholder() { return 0; } }
