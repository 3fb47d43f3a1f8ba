// A derived struct without a completeness field is a single resource: it can report none of
// the reasons the handler declares. Its list is behind an alias, which the derive reads only at
// the type level (the second error); either check keeps the page from going out unmarked.
use completeness::{ResultEnvelope, completeness};

pub type TicketRows = Vec<String>;

#[derive(ResultEnvelope)]
pub struct RecentTickets {
    pub tickets: TicketRows,
}

#[completeness(resource = "tickets", reasons(MorePagesAvailable))]
async fn recent_tickets() -> RecentTickets {
    RecentTickets { tickets: vec![] }
}

fn main() {}
